// A test reporter (node --test --test-reporter=./scripts/test-failed-files.js) that writes, as one
// JSON array, the test files in which a test failed. scripts/run-tests.js reads it to tell a run
// that failed only where its watchdog killed a stalled CLI launch from one that failed elsewhere.
export default async function* failedFiles(source) {
  const failed = new Set();
  for await (const event of source) {
    if (event.type === 'test:fail') failed.add(event.data.file ?? '(unknown file)');
  }
  yield `${JSON.stringify([...failed])}\n`;
}
