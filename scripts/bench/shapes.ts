// Bundle shapes for the benchmark: the same storm log lines as one file, cut into one log per pod
// (`ingress/<pod>/linkerd-proxy.log`, as `kubectl logs` loops and support scripts save them), the
// same pod files gzipped one by one, and the pod folder as one .tgz. The bytes are the one file's
// bytes, so every shape is compared on identical lines.

import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { podName, seeded } from '../fixtures/prng.js';

const MiB = 1 << 20;

export interface PodFiles {
  root: string;
  files: string[];
}

function podPaths(root: string, pods: number): string[] {
  const r = seeded(400);
  return Array.from({ length: pods }, () => path.join(root, 'ingress', podName(r, 'traefik'), 'linkerd-proxy.log'));
}

/** Cuts `log` at line boundaries into `pods` files of about equal size, under `root` (made once). */
export function splitIntoPods(log: string, size: number, root: string, pods: number): PodFiles {
  const files = podPaths(root, pods);
  const done = path.join(root, '.complete');
  if (existsSync(done)) return { root, files };
  rmSync(root, { recursive: true, force: true });
  const input = openSync(log, 'r');
  const buf = Buffer.allocUnsafe(4 * MiB);
  let at = 0;
  let carry = Buffer.alloc(0);
  try {
    for (const [i, file] of files.entries()) {
      mkdirSync(path.dirname(file), { recursive: true });
      const out = openSync(file, 'w');
      const target = i === files.length - 1 ? Infinity : Math.round((size * (i + 1)) / files.length);
      let written = 0;
      const start = at - carry.length;
      let pending: Buffer = carry;
      carry = Buffer.alloc(0);
      while (true) {
        if (start + written + pending.length >= target) {
          // Cut after the first newline past the target; the rest belongs to the next pod.
          const nl = pending.indexOf(10, Math.max(0, target - (start + written) - 1));
          if (nl !== -1) {
            writeSync(out, pending, 0, nl + 1);
            carry = Buffer.from(pending.subarray(nl + 1));
            break;
          }
        }
        writeSync(out, pending);
        written += pending.length;
        const n = readSync(input, buf, 0, buf.length, at);
        if (n === 0) break;
        at += n;
        pending = buf.subarray(0, n);
      }
      closeSync(out);
    }
  } finally {
    closeSync(input);
  }
  writeFileSync(done, '');
  return { root, files };
}

function run(command: string, args: string[], cwd?: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(' ')} … failed`);
}

/** The pod files gzipped one by one (default level, as `gzip` and most support scripts do), under `root`. */
export function gzipEach(pods: PodFiles, root: string): PodFiles {
  const files = pods.files.map((f) => path.join(root, path.relative(pods.root, f)) + '.gz');
  const done = path.join(root, '.complete');
  if (existsSync(done)) return { root, files };
  rmSync(root, { recursive: true, force: true });
  for (const [i, file] of files.entries()) {
    mkdirSync(path.dirname(file), { recursive: true });
    const out = openSync(`${file}.partial`, 'w');
    const result = spawnSync('gzip', ['-c', pods.files[i]!], { stdio: ['ignore', out, 'inherit'] });
    closeSync(out);
    if (result.status !== 0) throw new Error(`gzip ${pods.files[i]} failed`);
    renameSync(`${file}.partial`, file);
  }
  writeFileSync(done, '');
  return { root, files };
}

/** The pod folder as one gzipped tarball (`tar -czf`, as bundles are shared). */
export function tarball(pods: PodFiles, file: string): string {
  if (existsSync(file)) return file;
  run('tar', ['-czf', `${file}.partial`, '--exclude=.complete', '-C', pods.root, '.']);
  renameSync(`${file}.partial`, file);
  return file;
}
