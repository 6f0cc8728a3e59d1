// Rules often derive the same facts from a log line's body (its spans, target, message and
// fields) for every record. The proxy-log parser hands records with the same body one shared,
// frozen fields object (see its body cache), and a storm repeats a few hundred bodies millions of
// times, so a derivation that depends on the body alone can be worked out once per body.

import type { ProxyLogRecord } from '../core/types.js';

/**
 * Wraps `derive` so that it runs once per shared body. `derive` must read only the record's
 * spans, target, message and fields (never its pod, path, time or line): its result is reused for
 * every record with that body. Records whose body is not shared (fields not frozen) are derived
 * every time.
 */
export function perBody<T>(derive: (record: ProxyLogRecord) => T): (record: ProxyLogRecord) => T {
  const derived = new WeakMap<object, T>();
  return (record) => {
    const known = derived.get(record.fields);
    if (known !== undefined) return known;
    const value = derive(record);
    if (Object.isFrozen(record.fields)) derived.set(record.fields, value);
    return value;
  };
}
