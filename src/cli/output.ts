import { rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Writes a report file atomically: a temporary sibling is renamed into place, so an interrupted
 * run never leaves a partial report behind.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  pendingTemporaries.add(tmp);
  try {
    await writeFile(tmp, content);
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  } finally {
    pendingTemporaries.delete(tmp);
  }
}

const pendingTemporaries = new Set<string>();

/** Temporary files still being written, for the interrupt handler to remove. */
export function temporariesInFlight(): readonly string[] {
  return [...pendingTemporaries];
}

/** Writes to stdout and resolves once flushed; a closed pipe (`| head`) ends quietly. */
export function writeStdout(text: string): Promise<void> {
  return new Promise((resolve) => {
    if (text === '') return resolve();
    process.stdout.write(text, () => resolve());
  });
}
