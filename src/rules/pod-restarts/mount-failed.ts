// Linkerd pods that cannot start because a volume cannot be mounted: the kubelet reports
// `FailedMount` ("MountVolume.SetUp failed for volume "identity-issuer" : secret
// "linkerd-identity-issuer" not found", kubernetes pkg/volume/util/operationexecutor) and the pod
// stays in ContainerCreating. For Linkerd it is nearly always a Secret or ConfigMap the control
// plane needs and the install did not create (an external issuer not yet issued by cert-manager,
// a webhook certificate Secret deleted, a trust-roots ConfigMap missing after a partial upgrade).

import type { FindingDraft, SampleLine, SourceLocation } from '../../core/types.js';
import { keepSample } from '../../core/evidence.js';
import { stateCap } from '../../core/state-cap.js';
import { detach } from '../../util/stats.js';
import { workloadOfPod } from '../../util/path-meta.js';

export const MAX_MOUNT_FAILURES = stateCap(1_000);
const MAX_SAMPLES = 3;

export interface MountFailure {
  namespace: string | null;
  workload: string | null;
  pod: string | null;
  volume: string | null;
  /** `secret "linkerd-identity-issuer" not found` → ['secret', 'linkerd-identity-issuer']. */
  missing: [string, string] | null;
  count: number;
  samples: SampleLine[];
  location: SourceLocation;
}

const VOLUME = /for volume "([^"]{1,253})"/;
const MISSING = /\b(secret|configmap)s? "([a-z0-9][-a-z0-9.]{0,252})" not found/i;

/** Whether a FailedMount is Linkerd's: a Linkerd pod, or a volume whose Secret/ConfigMap is Linkerd's. */
export function isLinkerdMount(pod: string | null, namespace: string | null, message: string): boolean {
  if (pod !== null && (pod.startsWith('linkerd-') || (namespace !== null && /^linkerd(?:-|$)/.test(namespace)))) return true;
  return /"linkerd-[a-z0-9-]+"/.test(message);
}

export function addMountFailure(
  table: Map<string, MountFailure>,
  pod: string | null,
  namespace: string | null,
  message: string,
  count: number,
  at: SourceLocation,
  sample: string,
): void {
  const missing = MISSING.exec(message);
  const volume = VOLUME.exec(message)?.[1] ?? null;
  const workload = pod === null ? null : (workloadOfPod(pod) ?? pod);
  const key = `${namespace ?? ''}/${workload ?? at.path}/${volume ?? ''}`;
  let f = table.get(key);
  if (!f) {
    if (table.size >= MAX_MOUNT_FAILURES) return;
    f = {
      namespace: namespace === null ? null : detach(namespace),
      workload: workload === null ? null : detach(workload),
      pod: pod === null ? null : detach(pod),
      volume: volume === null ? null : detach(volume),
      missing: missing ? [missing[1]!.toLowerCase(), detach(missing[2]!)] : null,
      count: 0,
      samples: [],
      location: at,
    };
    table.set(detach(key), f);
  }
  f.count += count;
  keepSample(f.samples, MAX_SAMPLES, detach(at.path), at.line, detach(sample.slice(0, 400)));
}

export function mergeMountFailures(into: Map<string, MountFailure>, from: Map<string, MountFailure>): void {
  for (const [key, theirs] of from) {
    const mine = into.get(key);
    if (!mine) {
      if (into.size < MAX_MOUNT_FAILURES) into.set(key, theirs);
      continue;
    }
    mine.count += theirs.count;
    mine.missing = mine.missing ?? theirs.missing;
    for (const s of theirs.samples) if (mine.samples.length < MAX_SAMPLES) mine.samples.push(s);
  }
}

export function describeMountFailure(f: MountFailure): FindingDraft {
  const where = f.workload ? `${f.namespace ? `${f.namespace}/` : ''}${f.workload}` : 'a pod the paste does not name';
  const what = f.missing ? `${f.missing[0] === 'secret' ? 'Secret' : 'ConfigMap'} ${f.missing[1]} does not exist` : 'the volume cannot be set up';
  const ns = f.namespace ?? 'linkerd';
  const issuer = f.missing?.[1] === 'linkerd-identity-issuer';
  const webhook = f.missing !== null && /-k8s-tls$/.test(f.missing[1]);
  return {
    severity: 'error',
    kind: `mount-failed/${f.volume ?? 'volume'}`,
    title: `${where}: volume ${f.volume ?? '(unnamed)'} cannot be mounted, ${what}`,
    message: [
      `The kubelet cannot mount the volume ${f.volume ?? '(not named)'} of ${f.pod ? `pod ${f.pod}` : where} (${f.count} FailedMount event${f.count === 1 ? '' : 's'}): ${what}. The pod stays in ContainerCreating and none of its containers start.`,
      issuer
        ? 'The identity controller reads its issuer certificate and key from this Secret: without it, no proxy in the mesh can get a certificate. With an external issuer (`--identity-external-issuer`), cert-manager has to create it first.'
        : webhook
          ? 'This Secret holds the TLS certificate of a Linkerd admission webhook; the install creates it (or cert-manager does), and a deleted or never-issued Secret keeps the controller from starting.'
          : '',
    ]
      .filter((s) => s !== '')
      .join(' '),
    subject: {
      ...(f.namespace ? { namespace: f.namespace } : {}),
      ...(f.workload ? { workload: f.workload } : {}),
      ...(f.pod ? { pod: f.pod } : {}),
      target: f.volume ?? 'volume',
    },
    evidence: {
      problem: 'mount-failed',
      volume: f.volume,
      missing: f.missing ? { kind: f.missing[0], name: f.missing[1] } : null,
      events: f.count,
      samples: f.samples,
    },
    locations: [f.location],
    remediation: [
      f.missing
        ? `1. Check whether it exists: \`kubectl -n ${ns} get ${f.missing[0]} ${f.missing[1]}\`.${issuer ? ' With an external issuer, check the cert-manager Certificate that should write it (`kubectl -n linkerd describe certificate linkerd-identity-issuer`); otherwise re-create it from the issuer certificate and key the install used (`--identity-issuer-certificate-file`, `--identity-issuer-key-file`).' : ' Re-create it the way the control plane was installed (`linkerd upgrade | kubectl apply -f -`, the Helm release, or the cert-manager Certificate that writes it).'}`
        : `1. Read the whole error: \`kubectl describe pod ${f.pod ?? '<pod>'}\`, its Events.`,
      '2. The pod starts on its own once the volume can be mounted (the kubelet retries); restart it if it stays in ContainerCreating.',
    ].join('\n'),
    keyFigure: { name: 'failedMounts', value: f.count },
  };
}
