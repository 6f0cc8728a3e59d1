import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { tarBuffer as tarOf } from '../../scripts/fixtures/archive.js';
import { InputError, describeSystemError } from '../../src/core/errors.js';
import type { LdRecord } from '../../src/core/types.js';
import { readInputs } from '../../src/engine/analyze.js';
import { metaFromPath, workloadOfPod } from '../../src/util/path-meta.js';
import { sniffKind } from '../../src/parsers/sniff.js';

const LINE =
  '[  4384.968000s]  WARN ThreadId(01) dst:controller{addr=linkerd-dst-headless.linkerd.svc.cluster.local:8086}:endpoint{addr=10.2.88.14:8086}: linkerd_reconnect: Failed to connect error=endpoint 10.2.88.14:8086: Connection refused (os error 111)';

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), 'ld-input-'));
}

async function read(args: string[], stdin?: Readable) {
  const records: LdRecord[] = [];
  const result = await readInputs(args, (r) => records.push(r), { stdin });
  return { ...result, records };
}

describe('path metadata', () => {
  it('reads the kubelet /var/log/pods layout', () => {
    assert.deepEqual(metaFromPath('/var/log/pods/linkerd_linkerd-destination-5c9d8f7b6-abcde_0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0/linkerd-proxy/3.log'), {
      namespace: 'linkerd',
      pod: 'linkerd-destination-5c9d8f7b6-abcde',
      container: 'linkerd-proxy',
    });
  });

  it('reads /var/log/containers symlink names', () => {
    assert.deepEqual(metaFromPath(`/var/log/containers/web-7d9f8c6b5-x2x8k_shop_linkerd-proxy-${'a'.repeat(64)}.log`), {
      pod: 'web-7d9f8c6b5-x2x8k',
      namespace: 'shop',
      container: 'linkerd-proxy',
    });
  });

  it('reads <ns>/<pod>/<container>.log, also inside a tar bundle', () => {
    assert.deepEqual(metaFromPath('bundle/ingress/traefik-7d9f8c6b5-x2x8k/linkerd-proxy.log'), {
      namespace: 'ingress',
      pod: 'traefik-7d9f8c6b5-x2x8k',
      container: 'linkerd-proxy',
    });
    assert.deepEqual(metaFromPath('incident.tgz:ingress/traefik-7d9f8c6b5-x2x8k/linkerd-proxy.log.gz'), {
      namespace: 'ingress',
      pod: 'traefik-7d9f8c6b5-x2x8k',
      container: 'linkerd-proxy',
    });
  });

  it('reads kubectl cluster-info dump trees', () => {
    assert.deepEqual(metaFromPath('dump/linkerd/linkerd-destination-5c9d8f7b6-abcde/logs.txt'), {
      namespace: 'linkerd',
      pod: 'linkerd-destination-5c9d8f7b6-abcde',
    });
    assert.deepEqual(metaFromPath('dump/linkerd/linkerd-destination-5c9d8f7b6-abcde/destination/logs.txt'), {
      namespace: 'linkerd',
      pod: 'linkerd-destination-5c9d8f7b6-abcde',
      container: 'destination',
    });
  });

  it('reads <pod>.log and gives nothing for names that are not pods', () => {
    assert.deepEqual(metaFromPath('logs/traefik-7d9f8c6b5-x2x8k.log'), { pod: 'traefik-7d9f8c6b5-x2x8k' });
    assert.deepEqual(metaFromPath('/var/log/0.log'), {});
    assert.deepEqual(metaFromPath('captures/storm.log'), {});
    assert.deepEqual(metaFromPath('linkerd-proxy.log'), {});
    assert.deepEqual(metaFromPath('-'), {});
  });

  it('derives the workload from generated pod names', () => {
    assert.equal(workloadOfPod('traefik-7d9f8c6b5-x2x8k'), 'traefik');
    assert.equal(workloadOfPod('node-cache-x2x8k'), 'node-cache');
    assert.equal(workloadOfPod('redis-0'), 'redis');
  });
});

describe('kind sniffing', () => {
  it('recognises each input kind from its first lines', () => {
    assert.equal(sniffKind([LINE]), 'proxy-log');
    assert.equal(sniffKind(['2024-06-06T11:01:39.5Z stdout F ' + LINE]), 'proxy-log');
    assert.equal(
      sniffKind(['# HELP request_total Total count of HTTP requests.', '# TYPE request_total counter', 'request_total{direction="inbound"} 1']),
      'prometheus',
    );
    assert.equal(sniffKind(['#', '# POD web-7d9f8c6b5-x2x8k (1 of 2)', '#', 'process_open_fds 12']), 'prometheus');
    assert.equal(
      sniffKind(['', '; <<>> DiG 9.18.28-1~deb12u2-Debian <<>> SRV linkerd-dst-headless.linkerd.svc.cluster.local', ';; global options: +cmd']),
      'dig',
    );
    assert.equal(
      sniffKind(['[INFO] 10.2.3.4:53000 - 12345 "SRV IN linkerd-dst-headless.linkerd.svc.cluster.local. udp 78 false 1232" NOERROR qr,aa,rd 449 0.000123s']),
      'coredns-log',
    );
    // A Pod is known by its kind wherever its status sits (issue 44: a real pod's status starts past
    // the lines the sniffer reads); a manifest of another kind is not kubectl output.
    assert.equal(sniffKind(['apiVersion: v1', 'kind: Pod']), 'kubectl');
    assert.equal(sniffKind(['apiVersion: v1', 'kind: ConfigMap']), 'unknown');
  });
});

describe('input pipeline', () => {
  it('reads plain, .gz, tar and tgz inputs, including .gz members inside a tar', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'a.log'), `${LINE}\n`);
    writeFileSync(path.join(dir, 'b.log.gz'), gzipSync(`${LINE}\n${LINE}\n`));
    writeFileSync(
      path.join(dir, 'c.tar'),
      await tarOf([
        ['ns/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', `${LINE}\n`],
        ['ns/web-7d9f8c6b5-y2y8k/linkerd-proxy.log.gz', gzipSync(`${LINE}\n`)],
      ]),
    );
    writeFileSync(path.join(dir, 'd.tgz'), gzipSync(await tarOf([['x/traefik-7d9f8c6b5-x2x8k/linkerd-proxy.log', `${LINE}\n${LINE}\n${LINE}\n`]])));
    const { inputs, errors, records } = await read([dir]);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      inputs.map((i) => [path.relative(dir, i.path), i.kind, i.records]),
      [
        ['a.log', 'proxy-log', 1],
        ['b.log.gz', 'proxy-log', 2],
        ['c.tar:ns/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', 'proxy-log', 1],
        ['c.tar:ns/web-7d9f8c6b5-y2y8k/linkerd-proxy.log.gz', 'proxy-log', 1],
        ['d.tgz:x/traefik-7d9f8c6b5-x2x8k/linkerd-proxy.log', 'proxy-log', 3],
      ],
    );
    assert.equal(records.length, 8);
    assert.equal(records.find((r) => r.path.endsWith('y2y8k/linkerd-proxy.log.gz'))?.pod, 'web-7d9f8c6b5-y2y8k');
  });

  it('skips hidden and VCS folders when walking a directory, and expands globs', async () => {
    const dir = tmp();
    mkdirSync(path.join(dir, '.git'));
    mkdirSync(path.join(dir, '.hidden'));
    writeFileSync(path.join(dir, '.git', 'x.log'), `${LINE}\n`);
    writeFileSync(path.join(dir, '.hidden', 'x.log'), `${LINE}\n`);
    writeFileSync(path.join(dir, 'seen.log'), `${LINE}\n`);
    writeFileSync(path.join(dir, 'other.txt'), `${LINE}\n`);
    assert.deepEqual(
      (await read([dir])).inputs.map((i) => path.basename(i.path)),
      ['other.txt', 'seen.log'],
    );
    assert.deepEqual(
      (await read([path.join(dir, '*.log')])).inputs.map((i) => path.basename(i.path)),
      ['seen.log'],
    );
  });

  it('streams stdin for `-`, including gzip and tar piped in', async () => {
    const plain = await read(['-'], Readable.from([Buffer.from(`${LINE}\n${LINE}\n`)]));
    assert.equal(plain.records.length, 2);
    assert.equal(plain.inputs[0]!.path, '-');
    const tgz = await read(['-'], Readable.from([gzipSync(await tarOf([['ns/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', `${LINE}\n`]]))]));
    assert.deepEqual(
      tgz.inputs.map((i) => i.path),
      ['-:ns/web-7d9f8c6b5-x2x8k/linkerd-proxy.log'],
    );
  });

  it('reports a truncated gzip as an error naming the file, keeping the records read before it', async () => {
    const dir = tmp();
    const body = Array.from({ length: 5000 }, () => LINE).join('\n');
    const gz = gzipSync(body);
    writeFileSync(path.join(dir, 'cut.log.gz'), gz.subarray(0, gz.length - 20));
    writeFileSync(path.join(dir, 'ok.log'), `${LINE}\n`);
    const { errors, inputs, records } = await read([path.join(dir, 'cut.log.gz'), path.join(dir, 'ok.log')]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.path, path.join(dir, 'cut.log.gz'));
    assert.match(errors[0]!.message, /truncated gzip/);
    assert.ok(records.filter((r) => r.path.endsWith('cut.log.gz')).length > 1000, 'records before the cut are kept');
    assert.equal(inputs.find((i) => i.path.endsWith('ok.log'))?.records, 1);
  });

  it('reports a broken tar archive', async () => {
    const dir = tmp();
    const archive = await tarOf([['a/web-7d9f8c6b5-x2x8k/linkerd-proxy.log', Array.from({ length: 200 }, () => LINE).join('\n')]]);
    writeFileSync(path.join(dir, 'broken.tar'), archive.subarray(0, 5000));
    const { errors } = await read([path.join(dir, 'broken.tar')]);
    assert.equal(errors.length, 1);
    assert.ok(errors[0]!.path.startsWith(path.join(dir, 'broken.tar')), 'names the archive (and the member it broke in)');
    assert.match(errors[0]!.message, /broken tar archive/);
  });

  it('reports missing paths and empty globs, and still reads the other inputs', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'ok.log'), `${LINE}\n`);
    const { errors, records } = await read([path.join(dir, 'missing.log'), path.join(dir, 'none-*.log'), path.join(dir, 'ok.log')]);
    assert.deepEqual(
      errors.map((e) => e.message),
      ['no such file or directory', 'glob matched no files'],
    );
    assert.equal(records.length, 1);
  });

  it('reports a directory with nothing recognisable in it', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'config.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    const { errors } = await read([dir]);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.path, dir);
    assert.match(errors[0]!.message, /nothing recognisable/);
  });

  it('words system errors as the short phrase a user needs, in one line naming the file', () => {
    const eacces = Object.assign(new Error("EACCES: permission denied, open 'x.log'"), { code: 'EACCES' });
    assert.equal(describeSystemError(eacces), 'permission denied');
    assert.equal(new InputError('bundle/x.log', describeSystemError(eacces)).toLine(), 'bundle/x.log: permission denied');
    assert.equal(describeSystemError(Object.assign(new Error('x'), { code: 'ENOENT' })), 'no such file or directory');
  });
});
