// The catalogue of known Linkerd failure signatures: data only, read by the known-signature rule,
// by `explain <signature-id>` and by the docs/signatures.md generator. Each entry quotes the real
// line(s) it was drawn from (examples), which the tests feed back through the rule.
//
// Matching: a line is a candidate for an entry when it contains one of `literals` (a plain
// substring test, also the rule's lineInterest); `pattern` (a standard regex source) is then
// tested against the line text: the payload as printed for plain, legacy and CoreDNS lines, and
// `spans: target: message key=value…` rebuilt for JSON lines, so one pattern fits every format.
// Patterns must not depend on the uptime, level or thread prefix (levels are matched apart).
// Entries are tried in order and the first that matches wins, so specific entries come first.
// The entries live in signatures/, one file per family; the order below is the matching order.
//
// Pattern contract (matcher.ts; lines are untrusted and up to 1 MiB, so matching must be linear):
// - a pattern is alternatives (`|`) of segments joined by `.*` at its top level; write
//   `A.*B|C.*D`, not `(?:A.*B|C.*D)`, since a `.*` inside a group is left to V8's backtracking;
// - each segment is linear on its own: literals, classes and bounded repeats (`[^:]{1,60}`,
//   `\{addr=[^}]{0,256}\}`, `\w{1,64}`). An unbounded `*` or `+` inside a segment runs to the
//   end of a hostile line from every start of the segment, which is quadratic (`[^}]*` and
//   `(?:::\w+)*` were, at 12-28 s of CPU per MiB); no look-arounds or back-references (RE2, the
//   reference the tests compare with, has none);
// - every segment but the last ends its leftmost match no later than any other match of it.
// test/rules/known-signature-matcher.test.ts compares every entry with RE2 and
// test/security/regex-linear.test.ts measures every entry on adversarial lines: an entry that
// breaks the contract fails one of them.

import type { KnownSignature } from './signature.js';
import { IDENTITY_SIGNATURES } from './signatures/identity.js';
import { PROFILES_SIGNATURES } from './signatures/profiles.js';
import { FAILFAST_SIGNATURES } from './signatures/failfast.js';
import { DNS_SIGNATURES } from './signatures/dns.js';
import { PROTOCOL_DETECTION_SIGNATURES } from './signatures/protocol-detection.js';
import { AUTHORIZATION_SIGNATURES } from './signatures/authorization.js';
import { HTTP2_SIGNATURES } from './signatures/http2.js';
import { POLICY_CONTROLLER_SIGNATURES } from './signatures/policy-controller.js';
import { FILE_DESCRIPTORS_SIGNATURES } from './signatures/file-descriptors.js';
import { CONTROL_PLANE_SIGNATURES } from './signatures/control-plane.js';
import { DATA_PLANE_SIGNATURES } from './signatures/data-plane.js';
import { BENIGN_SIGNATURES } from './signatures/benign.js';
import { CONFIGURATION_SIGNATURES } from './signatures/configuration.js';
import { COREDNS_SIGNATURES } from './signatures/coredns.js';
import { CONTROLLER_SIGNATURES } from './signatures/controllers.js';
import { COMPONENT_SIGNATURES } from './signatures/components.js';
import { MULTICLUSTER_SIGNATURES } from './signatures/multicluster.js';
import { CERT_VALIDITY_SIGNATURES, LEGACY_PROXY_SIGNATURES, PROXY_RUNTIME_SIGNATURES } from './signatures/proxy-runtime.js';

export type { KnownSignature, SignatureExample, SignatureFamily, SignatureFix } from './signature.js';

/**
 * The most lines an input may hold to count as an excerpt: what users paste into a thread (3-30
 * lines), where no rate can be judged. A background signature is only reported from excerpts;
 * a proxy's full log holds minutes to days of lines, and the threshold rules judge those.
 */
export const EXCERPT_MAX_LINES = 50;

export const SIGNATURES: readonly KnownSignature[] = [
  ...CERT_VALIDITY_SIGNATURES,
  ...IDENTITY_SIGNATURES,
  ...PROFILES_SIGNATURES,
  ...FAILFAST_SIGNATURES,
  ...DNS_SIGNATURES,
  ...PROTOCOL_DETECTION_SIGNATURES,
  ...AUTHORIZATION_SIGNATURES,
  ...HTTP2_SIGNATURES,
  ...POLICY_CONTROLLER_SIGNATURES,
  ...FILE_DESCRIPTORS_SIGNATURES,
  ...CONTROL_PLANE_SIGNATURES,
  ...DATA_PLANE_SIGNATURES,
  ...CONTROLLER_SIGNATURES,
  ...COMPONENT_SIGNATURES,
  ...MULTICLUSTER_SIGNATURES,
  ...PROXY_RUNTIME_SIGNATURES,
  ...LEGACY_PROXY_SIGNATURES,
  ...BENIGN_SIGNATURES,
  ...CONFIGURATION_SIGNATURES,
  ...COREDNS_SIGNATURES,
];
