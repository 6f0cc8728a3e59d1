// The EMFILE line as a regex source valid in both JavaScript and RE2, so the offline rule and its
// LogQL twin (./export.ts) match the same lines.

/** EMFILE, as Rust's io::Error (`(os error 24)`) and the proxy's own messages print it. */
export const EMFILE = 'Too many open files|os error 24[)]';
