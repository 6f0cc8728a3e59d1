// The YAML library, loaded the first time a YAML document is read: most runs read none (a log
// bundle, a metrics dump), and importing it at start-up cost every run 15–40 ms. Its CommonJS
// build loads synchronously, so the streaming parsers can call it in place; Node's module cache
// makes every later call a lookup.

import { createRequire } from 'node:module';

export function yamlLibrary(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}
