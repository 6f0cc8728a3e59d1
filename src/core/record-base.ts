// The fields every parsed record carries; a leaf module so record families kept in their own files
// (cli-records.ts) extend it without importing types.ts, which lists them all.

export interface RecordBase {
  /** Input path, as in InputInfo.path. */
  path: string;
  /** 1-based physical line number of the record's first line in that input. */
  line: number;
  pod?: string;
  namespace?: string;
  container?: string;
}
