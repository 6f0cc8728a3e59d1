// Objects keyed by names that come from the input (a container, a log level, a label, a logfmt key)
// must not inherit: in a plain object `constructor`, `toString` and `__proto__` are already there,
// so a container named `constructor` was taken for a Linkerd controller ("It provides undefined.")
// and `level=__proto__` read as the level `{}` (issue 44). These have no prototype: a name is only
// ever its own entry. eslint.config.js's local rule `doctor/no-plain-dict` refuses a plain object
// literal typed `Record<string, …>` in src/, pointing here (or to a Map).

/** An empty object with no prototype, for entries keyed by input-derived names. */
export function dict<V>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/** A frozen lookup table with no prototype: `TABLE[name]` is undefined for any name it does not list. */
export function lookupTable<V>(entries: Readonly<Record<string, V>>): Readonly<Record<string, V>> {
  return Object.freeze(Object.assign(dict<V>(), entries));
}
