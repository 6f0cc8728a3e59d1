// The shape of a check verdict and the builders the verdict tables share (checks-core.ts,
// checks-extensions.ts); checks.ts joins the tables. See checks.ts for what a verdict holds.

import type { CertificateRole } from './certificates.js';

export interface CheckVerdict {
  /** What a failure says, in the user's words. */
  meaning: string;
  /** What a warning (‼) says, when it differs. */
  warningMeaning?: string;
  /** Likely causes, the most likely first. */
  causes: readonly string[];
  /** The first thing to do, a template (see the header). */
  firstAction: string;
  /** The fix where releases differ. */
  fixByVersion?: string;
  /** A warning of this check says nothing is broken (a newer release exists, a check that cannot run): info, not a warning. */
  benignWarning?: boolean;
  /** The certificate the check is about, when it is one. */
  certificate?: CertificateRole;
}

export const INSTALL = 'linkerd install | kubectl apply -f - (Helm: helm upgrade --install linkerd-control-plane linkerd/linkerd-control-plane -n linkerd)';
export const VIZ_INSTALL = 'linkerd viz install | kubectl apply -f - (Helm: helm upgrade --install linkerd-viz linkerd/linkerd-viz -n linkerd-viz)';
export const MC_INSTALL =
  'linkerd multicluster install | kubectl apply -f - (Helm: helm upgrade --install linkerd-multicluster linkerd/linkerd-multicluster -n linkerd-multicluster)';
export const JAEGER_INSTALL =
  'linkerd jaeger install | kubectl apply -f - (Helm: helm upgrade --install linkerd-jaeger linkerd/linkerd-jaeger -n linkerd-jaeger)';
export const CNI_INSTALL = 'linkerd install-cni | kubectl apply -f - (Helm: helm upgrade --install linkerd2-cni linkerd/linkerd2-cni -n linkerd-cni)';

export function exists(what: string, reinstall: string, extra: readonly string[] = []): CheckVerdict {
  return {
    meaning: `${what} missing: the installation is incomplete`,
    causes: [
      'an install or upgrade that did not finish (a kubectl apply that stopped at an error, a Helm release that failed)',
      'resources deleted by hand or by an uninstall of a part of Linkerd',
      ...extra,
      'the CLI lacks the RBAC to read them, or looks in another namespace (--linkerd-namespace)',
    ],
    firstAction: `Re-apply the manifests: ${reinstall}, then run linkerd check again`,
  };
}

export function podsRunning(component: string, namespace: string): CheckVerdict {
  return {
    meaning: `${component} pods are not running or not ready: {detail}`,
    causes: [
      'a pod Pending: no node has the CPU or memory it requests, or a PersistentVolume cannot bind',
      'a pod stuck initialising: the linkerd-init / CNI step or the proxy cannot start (no certificate from identity, the control plane not ready)',
      'an image that cannot be pulled (a private registry, a mirror without the tag)',
    ],
    firstAction: `Find why: kubectl -n ${namespace} describe pod {pods} (Events at the end) and kubectl -n ${namespace} get pods`,
  };
}

export function proxiesHealthy(component: string, namespace: string): CheckVerdict {
  return {
    meaning: `${component} proxies are not healthy: {detail}`,
    causes: [
      'the pod is not running (Pending, crash-looping, still initialising): the proxy check fails with it',
      'the proxy cannot get a certificate from identity (identity down, issuer expired)',
      "the proxy's readiness probe on 4191 fails",
    ],
    firstAction: `Look at the pod and its proxy: kubectl -n ${namespace} describe pod {pods}; kubectl -n ${namespace} logs {pods} -c linkerd-proxy`,
  };
}

export function proxyVersion(component: string, namespace: string, against: 'control plane' | 'cli'): CheckVerdict {
  return {
    meaning: `${component} proxies run another version than the ${against}: {detail}`,
    causes: [
      against === 'cli'
        ? 'the CLI is newer or older than the installed release (a CLI upgraded without the cluster, or the reverse)'
        : 'pods not restarted since the last upgrade keep the proxy they were injected with',
      'an upgrade in progress',
    ],
    firstAction:
      against === 'cli'
        ? 'Use the CLI of the installed release (linkerd version shows both), or upgrade the cluster to the CLI version'
        : `Restart the workloads so they are re-injected with the current proxy: kubectl -n ${namespace} rollout restart deploy`,
    benignWarning: true,
  };
}

export function certValid(role: CertificateRole, what: string, restart: string): CheckVerdict {
  return {
    meaning: `${what} is not valid: {detail}`,
    causes: [
      'the certificate expired (webhook and tap certificates generated at install are valid for one year)',
      'the certificate and the caBundle of the webhook / APIService are out of sync after an upgrade that regenerated one of them',
      'the Secret was replaced by hand or by cert-manager without the pods being restarted',
    ],
    firstAction: `Regenerate it and restart what serves it: ${restart}`,
    certificate: role,
  };
}

export function certSoon(role: CertificateRole, what: string): CheckVerdict {
  return {
    meaning: `${what} expires within 60 days (on {date})`,
    causes: [
      'a certificate issued for one year at install and not rotated since',
      'a short-lived certificate that cert-manager renews on schedule: expected, nothing is wrong then',
    ],
    firstAction:
      'Plan its rotation before {date}: with cert-manager, check the Certificate is Ready and renews (kubectl get certificates -A); otherwise regenerate it with linkerd upgrade | kubectl apply -f - or helm upgrade',
    benignWarning: true,
    certificate: role,
  };
}

export const ANCHOR_EXPIRED: CheckVerdict = {
  meaning: 'the trust anchor expired{date_on}: no proxy can verify another, so meshed traffic and identity fail',
  causes: ['a root created for one year (or less: a test root) at install and never rotated', 'a rotation that replaced the issuer but not the root'],
  firstAction:
    'Replace the trust anchor and the issuer together (an expired root cannot be bundled), then restart the control plane and every meshed workload; the procedure for your setup is below',
  fixByVersion:
    '2.7-2.8: the anchors live in the linkerd-config ConfigMap (identityContext.trustAnchorsPem); 2.9+: --identity-trust-anchors-file with linkerd upgrade, or identityTrustAnchorsPEM in Helm; 2.12+: the linkerd-identity-trust-roots ConfigMap holds the bundle',
  certificate: 'trust-anchor',
};

export const ANCHOR_SOON: CheckVerdict = {
  meaning: 'the trust anchor expires within 60 days (on {date})',
  causes: ['a root issued for one year at install and not rotated since', 'a short-lived root managed by an external CA: expected then'],
  firstAction:
    'Rotate the trust anchor before {date} without downtime: bundle a new root with the current one, restart the workloads, then switch the issuer to the new root',
  benignWarning: true,
  certificate: 'trust-anchor',
};

export const ALGO = (role: CertificateRole, what: string): CheckVerdict => ({
  meaning: `${what} does not use ECDSA P-256, the only key type Linkerd's identity accepts`,
  causes: ['a certificate generated with an RSA key or another curve (openssl defaults, a corporate CA)'],
  firstAction: `Generate it again with an ECDSA P-256 key: step certificate create … --kty EC --crv P-256, then apply it with linkerd upgrade or helm upgrade`,
  certificate: role,
});
