// The SARIF 2.1.0 JSON schema (OASIS, copied into test/data/sarif) compiled with ajv's draft-04
// build, plus the string formats the schema uses (ajv-formats is not a dependency).

import { readFileSync } from 'node:fs';
import AjvModule from 'ajv-draft-04';

// A CommonJS module: under NodeNext the default import is module.exports, whose .default is the class.
const Ajv = AjvModule.default;

const schema = JSON.parse(readFileSync(new URL('../data/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as object;

const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addFormat('uri', (s: string) => {
  try {
    return new URL(s).protocol.length > 1;
  } catch {
    return false;
  }
});
ajv.addFormat('uri-reference', (s: string) => {
  try {
    new URL(s, 'http://base.invalid/');
    return !/\s/.test(s);
  } catch {
    return false;
  }
});
ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/i);

const validate = ajv.compile(schema);

/** Schema errors as readable lines; empty when the log is valid SARIF 2.1.0. */
export function sarifSchemaErrors(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
