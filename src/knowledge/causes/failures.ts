// What failed, in the user's words, for catalogue signatures whose own title is the log line's
// wording: the finding's title must say what went wrong, not repeat the line. Their causes are the
// catalogue's own (each cited by its references) until the base has curated ones.

export const FAILURE_PHRASES: ReadonlyMap<string, string> = new Map([
  ['dns-refinement-timeout', 'The proxy could not resolve a destination name in time (DNS answered too slowly)'],
  ['protocol-detection-timeout', 'The proxy waited 10 s for the first bytes of a connection and gave up detecting its protocol'],
  ['tls-detection-timeout', 'Inbound connections sent nothing the proxy could read as TLS or plaintext in time'],
  ['too-many-open-files', 'The proxy ran out of file descriptors and refuses new connections'],
  ['endpoint-no-route-to-host', 'The proxy cannot reach an endpoint: the node has no route to its IP'],
]);
