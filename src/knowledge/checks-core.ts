// Verdicts of the core checks (kubernetes, --pre, control plane, identity and certificates,
// versions, --proxy), keyed by hint anchor; see checks.ts.

import {
  ALGO,
  ANCHOR_EXPIRED,
  ANCHOR_SOON,
  INSTALL,
  certSoon,
  certValid,
  exists,
  podsRunning,
  proxiesHealthy,
  proxyVersion,
  type CheckVerdict,
} from './checks-model.js';
import { lookupTable } from '../util/dict.js';

export const CORE_VERDICTS: Readonly<Record<string, CheckVerdict>> = lookupTable({
  // ------------------------------------------------------------------ kubernetes and --pre
  'k8s-api': {
    meaning: 'the CLI cannot reach the Kubernetes API: {detail}',
    causes: [
      'the kubeconfig context points at another cluster or has expired credentials',
      'the API server is unreachable from this machine (VPN, proxy, firewall)',
    ],
    firstAction: 'Check the context and credentials: kubectl config current-context; kubectl get ns',
  },
  'k8s-version': {
    meaning: 'the Kubernetes API server is older than this Linkerd release supports: {detail}',
    causes: ['a cluster older than the minimum of the release (each Linkerd release names its minimum in its release notes)'],
    firstAction: 'Upgrade the cluster, or install a Linkerd release that supports this Kubernetes version',
  },
  'kubectl-version': {
    meaning: 'kubectl is older than this Linkerd release supports: {detail}',
    causes: ['an old kubectl on the PATH'],
    firstAction: 'Install a newer kubectl (kubectl version --client shows the one in use)',
    fixByVersion: 'the check was removed in 2.12',
  },
  'gateway-api-crd': {
    meaning: 'the Gateway API CRDs Linkerd needs are not installed: {detail}',
    causes: ['a cluster without the Gateway API CRDs, and Linkerd told not to install them (installGatewayAPI=false)'],
    firstAction:
      'Install the Gateway API CRDs (kubectl apply -f https://github.com/kubernetes-sigs/gateway-api/releases/download/<version>/standard-install.yaml) or let Linkerd install them',
  },
  'pre-ns': {
    meaning: 'the control-plane namespace already exists: {detail}',
    causes: ['a previous install or a partial uninstall left it', 'another tool created it'],
    firstAction: 'Delete the leftover namespace (kubectl delete ns linkerd) or upgrade the existing installation instead of installing',
  },
  'pre-k8s-cluster-k8s': {
    meaning: 'your user cannot create cluster-wide resources (CRDs, ClusterRoles, webhooks): {detail}',
    causes: ['the kubeconfig user is not cluster-admin'],
    firstAction: 'Run the install as a cluster administrator (kubectl auth can-i create clusterroles)',
  },
  'pre-k8s': {
    meaning: 'your user lacks a permission the install needs: {detail}',
    causes: ['the kubeconfig user is not cluster-admin, or a namespace-scoped role'],
    firstAction: 'Run the install as a cluster administrator (kubectl auth can-i --list shows what you may do)',
  },
  'pre-k8s-clock-skew': {
    meaning: 'clock skew: a node clock differs from this machine by more than the check allows: {detail}',
    causes: ['a node without time synchronisation (NTP/chrony stopped)', 'a laptop or VM that slept'],
    firstAction:
      'Synchronise the clocks of the nodes it names (timedatectl status; restart chronyd or systemd-timesyncd): certificates fail as not yet valid under skew',
  },
  'pre-k8s-cluster-net-admin': {
    meaning: 'pods may not get the NET_ADMIN capability linkerd-init needs: {detail}',
    causes: [
      'PodSecurityPolicies exist but none grant NET_ADMIN',
      'a false alarm when the PSP admission controller is not enabled (AKS, clusters with PSP objects but no admission plugin): then nothing enforces them',
    ],
    firstAction:
      'Check whether the PodSecurityPolicy admission plugin is enabled; if it is, grant NET_ADMIN to the meshed pods or use the CNI plugin (linkerd install-cni)',
    fixByVersion: 'made a warning in 2.3 (linkerd2#2958); removed with PSPs in 2.11',
    benignWarning: true,
  },
  'pre-k8s-cluster-net-raw': {
    meaning: 'pods may not get the NET_RAW capability linkerd-init needs: {detail}',
    causes: ['PodSecurityPolicies exist but none grant NET_RAW', 'a false alarm when the PSP admission controller is not enabled'],
    firstAction: 'Check whether the PodSecurityPolicy admission plugin is enabled; if it is, grant NET_RAW or use the CNI plugin (linkerd install-cni)',
    benignWarning: true,
  },
  'pre-l5d-existence': {
    meaning: "Linkerd's cluster-wide resources already exist: {detail}",
    causes: ['a previous installation, or an uninstall that left cluster-wide resources'],
    firstAction: 'Remove the leftovers (linkerd uninstall | kubectl delete -f -) or upgrade instead of installing',
  },
  // ------------------------------------------------------------------ control-plane existence and config
  'l5d-existence-ns': exists('the control-plane namespace is', INSTALL),
  'l5d-existence-cr': exists('control-plane ClusterRoles are', INSTALL),
  'l5d-existence-crb': exists('control-plane ClusterRoleBindings are', INSTALL),
  'l5d-existence-sa': exists('control-plane ServiceAccounts are', INSTALL),
  'l5d-existence-psp': exists('control-plane PodSecurityPolicies are', INSTALL),
  'l5d-existence-mwc': exists("the proxy-injector's MutatingWebhookConfiguration is", INSTALL),
  'l5d-existence-vwc': exists("the validators' ValidatingWebhookConfigurations are", INSTALL),
  'l5d-existence-crd': {
    meaning: 'control-plane CRDs are missing: {detail}',
    causes: [
      'a CLI newer than the control plane: the CLI expects CRDs the installed release does not have (version skew)',
      'the linkerd-crds chart (or linkerd install --crds) was not applied before the control plane',
    ],
    firstAction:
      'Compare the CLI and the control plane (linkerd version); use the CLI of the installed release, or install the CRDs of the new one: linkerd install --crds | kubectl apply -f -',
    fixByVersion:
      '2.12 moved the CRDs to their own step (linkerd install --crds / the linkerd-crds chart); 2.12.1 stopped expecting policy CRDs of older control planes (linkerd2#9287)',
  },
  'l5d-existence-linkerd-config': exists('the linkerd-config ConfigMap is', INSTALL),
  'l5d-existence-replicasets': {
    meaning: 'control-plane ReplicaSets cannot create their pods: {detail}',
    causes: [
      'the proxy-injector webhook is unreachable while the injector itself is not running, and the webhook fails closed for the control plane',
      'a quota, PodSecurity admission or a policy engine rejecting the pods',
      'nodes without room for them',
    ],
    firstAction: 'Read why the ReplicaSets cannot create pods: kubectl -n linkerd describe rs (its Events name the webhook or quota that refused them)',
  },
  'l5d-existence-unschedulable-pods': {
    meaning: 'control-plane pods cannot be scheduled: {detail}',
    causes: ['no node has the CPU or memory the pods request', 'HA anti-affinity needs more nodes than there are', 'taints without tolerations'],
    firstAction: 'Read the scheduler events: kubectl -n linkerd describe pod {pods}',
  },
  'l5d-existence-controller': podsRunning('control-plane', 'linkerd'),
  'l5d-existence-client': {
    meaning: 'the CLI cannot build a client for the control plane: {detail}',
    causes: ['the kubeconfig is unusable for port-forwarding to the control plane'],
    firstAction: 'Check kubectl access to the linkerd namespace: kubectl -n linkerd get pods',
  },
  'l5d-existence-api': {
    meaning: 'the CLI cannot query the control-plane API: {detail}',
    causes: ['the control-plane pods are not ready', 'the port-forward to the public API fails (network policy, API server proxying)'],
    firstAction: 'Check the control-plane pods: kubectl -n linkerd get pods; kubectl -n linkerd logs deploy/linkerd-controller',
  },
  'l5d-proxy-init-run-as-root': {
    meaning: 'linkerd-init does not run as root while the container runtime is Docker: {detail}',
    causes: ['proxyInit.runAsRoot=false on nodes with the docker runtime, where iptables needs root'],
    firstAction: 'Set proxyInit.runAsRoot=true (linkerd upgrade --set proxyInit.runAsRoot=true | kubectl apply -f -) or use the CNI plugin',
  },
  'l5d-extension-namespaces': {
    meaning: 'an extension namespace lacks the label linkerd check uses to find it: {detail}',
    causes: ['an extension installed by hand or with an old chart without the linkerd.io/extension label'],
    firstAction: 'Label the namespace as the message says (kubectl label ns <ns> linkerd.io/extension=<name>)',
    benignWarning: true,
  },
  // ------------------------------------------------------------------ identity and certificates
  'l5d-identity-cert-config-valid': {
    meaning: 'the identity certificate configuration is not valid: {detail}',
    causes: [
      'the trust anchors and the issuer Secret disagree: a multi-certificate bundle compared byte for byte with ca.crt of an external issuer (a false failure in 2.9, the comparison was removed)',
      'the issuer Secret lacks crt.pem/key.pem (or tls.crt/tls.key with an external issuer)',
      'the trust anchor value is not PEM (escaped newlines, base64 twice)',
    ],
    firstAction:
      'Compare what the control plane trusts with the issuer Secret: kubectl -n linkerd get secret linkerd-identity-issuer -o yaml and kubectl -n linkerd get cm linkerd-identity-trust-roots -o yaml (2.9-2.11: linkerd-config); step certificate inspect each',
    fixByVersion:
      '2.9.x: with an external issuer (cert-manager, kubernetes.io/tls) holding a multi-certificate bundle, the check failed wrongly; fixed by linkerd2#5424',
  },
  'l5d-identity-trustAnchors-are-time-valid': ANCHOR_EXPIRED,
  'l5d-identity-roots-are-time-valid': ANCHOR_EXPIRED,
  'l5d-identity-trustAnchors-not-expiring-soon': ANCHOR_SOON,
  'l5d-identity-roots-not-expiring-soon': ANCHOR_SOON,
  'l5d-identity-trustAnchors-use-supported-crypto': ALGO('trust-anchor', 'the trust anchor'),
  'l5d-identity-roots-use-supported-crypto': ALGO('trust-anchor', 'the trust anchor'),
  'l5d-identity-issuer-cert-uses-supported-crypto': ALGO('identity-issuer', 'the identity issuer certificate'),
  'l5d-identity-issuer-cert-is-time-valid': {
    meaning: 'the identity issuer certificate is not valid{date_on}: identity cannot sign proxy certificates, so new and restarted proxies get none',
    causes: [
      'an issuer created for one year at install and never rotated',
      'cert-manager failing to renew it (its Issuer or the trust-anchor Secret broken)',
      'clock skew when it is not valid yet',
    ],
    firstAction: 'Issue a new issuer from the current trust anchor and apply it; the procedure for your setup is below',
    certificate: 'identity-issuer',
  },
  'l5d-identity-issuer-cert-not-expiring-soon': {
    meaning: 'the identity issuer certificate expires within 60 days (on {date})',
    causes: ['an issuer issued for one year at install and not rotated', 'a short-lived issuer that cert-manager renews: expected then'],
    firstAction:
      'Plan the rotation before {date}: with cert-manager, check kubectl -n linkerd describe certificate linkerd-identity-issuer renews it; otherwise issue a new one and apply it',
    benignWarning: true,
    certificate: 'identity-issuer',
  },
  'l5d-identity-issuer-cert-issued-by-trust-anchor': {
    meaning: 'the identity issuer is not signed by the trust anchor the proxies trust: {detail}',
    causes: [
      'a new trust anchor applied without re-issuing the issuer from it (or the reverse)',
      'a new root passed to linkerd upgrade that is not a bundle holding the old one',
    ],
    firstAction: 'Issue the issuer again from the trust anchor you applied (step certificate verify issuer.crt --roots ca.crt must pass), then apply both',
    certificate: 'identity-issuer',
  },
  'l5d-identity-issuer-cert-issued-by-trust-root': {
    meaning: 'the identity issuer is not signed by the trust root the proxies trust: {detail}',
    causes: ['a new root applied without re-issuing the issuer from it'],
    firstAction: 'Issue the issuer again from the root you applied (step certificate verify issuer.crt --roots ca.crt must pass), then apply both',
    certificate: 'identity-issuer',
  },
  'l5d-identity-data-plane-proxies-certs-match-ca': {
    meaning: 'data-plane proxies still trust the old trust anchor: restart them ({pods})',
    causes: ['pods not restarted since the trust anchor was rotated'],
    firstAction: 'Restart the workloads of the pods it lists so they load the current bundle: kubectl -n {namespace} rollout restart deploy',
    certificate: 'trust-anchor',
  },
  'l5d-proxy-injector-webhook-cert-valid': certValid(
    'proxy-injector-webhook',
    "the proxy-injector webhook's certificate",
    'linkerd upgrade | kubectl apply -f -; kubectl -n linkerd rollout restart deploy/linkerd-proxy-injector',
  ),
  'l5d-sp-validator-webhook-cert-valid': certValid(
    'sp-validator-webhook',
    "the sp-validator webhook's certificate",
    'linkerd upgrade | kubectl apply -f -; kubectl -n linkerd rollout restart deploy/linkerd-destination',
  ),
  'l5d-policy-validator-webhook-cert-valid': certValid(
    'policy-validator-webhook',
    "the policy-validator webhook's certificate",
    'linkerd upgrade | kubectl apply -f -; kubectl -n linkerd rollout restart deploy/linkerd-destination',
  ),
  'l5d-tap-cert-valid': certValid(
    'tap-apiservice',
    "the tap API server's certificate",
    'linkerd viz install | kubectl apply -f -; kubectl -n linkerd-viz rollout restart deploy/tap',
  ),
  'l5d-proxy-injector-webhook-cert-not-expiring-soon': certSoon('proxy-injector-webhook', "the proxy-injector webhook's certificate"),
  'l5d-sp-validator-webhook-cert-not-expiring-soon': certSoon('sp-validator-webhook', "the sp-validator webhook's certificate"),
  'l5d-policy-validator-webhook-cert-not-expiring-soon': certSoon('policy-validator-webhook', "the policy-validator webhook's certificate"),
  'l5d-tap-cert-not-expiring-soon': certSoon('tap-apiservice', "the tap API server's certificate"),
  'l5d-webhook-cert-not-expiring-soon': certSoon('tap-apiservice', "the tap API server's certificate"),
  // ------------------------------------------------------------------ control-plane API, networks
  'l5d-api-control-ready': {
    meaning: 'control-plane pods are not ready: {detail}',
    causes: [
      'a controller crash-looping or not starting (certificates, API-server access)',
      'pods Pending for lack of room',
      'the proxy of a controller not ready',
    ],
    firstAction: 'Find which and why: kubectl -n linkerd get pods; kubectl -n linkerd describe pod {pods}',
  },
  'l5d-api-control-client': {
    meaning: 'the CLI cannot build a client for the control-plane API: {detail}',
    causes: ['the kubeconfig is unusable for port-forwarding'],
    firstAction: 'Check kubectl access to the linkerd namespace: kubectl -n linkerd get pods',
  },
  'l5d-api-control-api': {
    meaning: 'the control plane cannot answer the self-check: {detail}',
    causes: [
      'a component the public API calls is unreachable from the control plane: the cluster DNS has no record for its Service (no such host), or it is not running',
      'control-plane pods not ready',
    ],
    firstAction:
      'Read the error it quotes and check the named Service and its pods: kubectl -n linkerd get svc,pods; kubectl -n linkerd logs deploy/linkerd-controller',
  },
  'l5d-cluster-networks-verified': {
    meaning: 'the check cannot verify clusterNetworks because nodes do not publish a podCIDR: {detail}',
    causes: ['a CNI or provider that assigns pod IPs without spec.podCIDR (EKS VPC CNI, Calico IPAM, Cilium): harmless'],
    firstAction:
      'Confirm that clusterNetworks covers your pod and service ranges (kubectl -n linkerd get cm linkerd-config -o yaml | grep -i clusterNetworks); otherwise nothing to change',
    benignWarning: true,
  },
  'l5d-cluster-networks-cidr': {
    meaning: 'clusterNetworks does not cover every node podCIDR: {detail}',
    causes: [
      "a node podCIDR outside Linkerd's clusterNetworks: traffic to those pods is not treated as in-cluster",
      'nodes that do not expose a podCIDR in their spec (DigitalOcean, some CNIs): the check parses an empty CIDR, a false failure fixed in 2.10.x (linkerd2#6399)',
    ],
    firstAction:
      'Compare kubectl get nodes -o jsonpath="{.items[*].spec.podCIDR}" with clusterNetworks; add the missing ranges (linkerd upgrade --set clusterNetworks=…) or, when nodes have no podCIDR, ignore it and upgrade the CLI',
    fixByVersion: 'an empty node podCIDR read as invalid until linkerd2#6399 (2.10.x)',
  },
  'l5d-cluster-networks-pods': {
    meaning: 'some pod or Service IPs are outside clusterNetworks: {detail}',
    causes: ['clusterNetworks left at its default while the cluster uses other ranges'],
    firstAction:
      'Add the ranges of your pods and Services to clusterNetworks (linkerd upgrade --set clusterNetworks=… or Helm) and restart the meshed workloads',
  },
  'l5d-control-plane-replicas': {
    meaning: 'control-plane Deployments run a single replica: {detail}',
    causes: ['an install without --ha: fine for development, one failure away from an outage in production'],
    firstAction: 'Install with high availability for production: linkerd upgrade --ha | kubectl apply -f - (Helm: the values-ha.yaml of the chart)',
    benignWarning: true,
  },
  'l5d-injection-disabled': {
    meaning: 'kube-system is not excluded from proxy injection: {detail}',
    causes: ['the namespace lacks config.linkerd.io/admission-webhooks=disabled, so system pods may be injected'],
    firstAction: 'Label it: kubectl label ns kube-system config.linkerd.io/admission-webhooks=disabled',
  },
  // ------------------------------------------------------------------ versions
  'l5d-version-latest': {
    meaning: 'the CLI could not fetch the latest version: {detail}',
    causes: ['no internet access from this machine (air-gapped, proxy)'],
    firstAction: 'Allow this machine to reach versioncheck.linkerd.io (HTTPS), or ignore it: only the version checks depend on it',
    benignWarning: true,
  },
  'l5d-version-cli': {
    meaning: 'a newer Linkerd release than the CLI exists: {detail}',
    causes: ['a release published since the CLI was installed'],
    firstAction: 'Upgrade the CLI when convenient: curl -sL https://run.linkerd.io/install | sh (or your package manager)',
    benignWarning: true,
  },
  'l5d-version-control': {
    meaning: 'the control plane is not the latest release, or differs from the CLI: {detail}',
    causes: ['a release published since the install', 'a CLI of another version than the cluster', 'a development build with no channel'],
    firstAction:
      'Compare with linkerd version; upgrade the control plane when convenient (linkerd upgrade | kubectl apply -f -) or use the CLI of the installed release',
    benignWarning: true,
  },
  'l5d-cp-proxy-healthy': proxiesHealthy('control-plane', 'linkerd'),
  'l5d-cp-proxy-version': proxyVersion('control-plane', 'linkerd', 'control plane'),
  'l5d-cp-proxy-cli-version': proxyVersion('control-plane', 'linkerd', 'cli'),
  // ------------------------------------------------------------------ data plane (--proxy)
  'l5d-data-plane-exists': {
    meaning: 'the namespace given to linkerd check --proxy does not exist: {detail}',
    causes: ['a typo in -n, or the wrong cluster context'],
    firstAction: 'Check the namespace name: kubectl get ns',
  },
  'l5d-data-plane-ready': {
    meaning: 'data-plane proxies are not ready: {detail}',
    causes: [
      'proxies without a certificate (identity unreachable, issuer expired)',
      'proxies that cannot reach the destination controller',
      'pods still starting',
    ],
    firstAction: 'Read the proxy log of a pod it names: kubectl -n {namespace} logs {pods} -c linkerd-proxy',
  },
  'l5d-data-plane-version': proxyVersion('data-plane', '{namespace}', 'control plane'),
  'l5d-data-plane-cli-version': proxyVersion('data-plane', '{namespace}', 'cli'),
  'l5d-data-plane-prom': {
    meaning: 'Prometheus has no metrics of the data-plane proxies: {detail}',
    causes: ['Prometheus cannot scrape the proxies (an authorization policy denies it, a network policy)', 'the proxies just started'],
    firstAction: "Check the scrape: kubectl -n linkerd-viz logs deploy/prometheus -c prometheus; with a default-deny policy authorize linkerd-viz's Prometheus",
  },
  'l5d-data-plane-pod-labels': {
    meaning: 'pod labels carry Linkerd config keys that only work as annotations: {detail}',
    causes: ['config.linkerd.io/… or linkerd.io/inject set as labels instead of annotations'],
    firstAction: 'Move those keys from labels to annotations on the pod template',
    benignWarning: true,
  },
  'l5d-data-plane-services-labels': {
    meaning: 'Service labels carry Linkerd config keys that only work as annotations: {detail}',
    causes: ['config.linkerd.io/opaque-ports set as a label'],
    firstAction: 'Move those keys from labels to annotations on the Service',
    benignWarning: true,
  },
  'l5d-data-plane-services-annotations': {
    meaning: 'Service annotations are misconfigured: {detail}',
    causes: ['an annotation Linkerd reads, with a value it cannot parse'],
    firstAction: 'Fix the annotation the message names on the Service',
  },
  'linkerd-opaque-ports-definition': {
    meaning: 'opaque ports are not annotated consistently on a Service and its pods: {detail}',
    causes: ['config.linkerd.io/opaque-ports on the Service but not on the pods (or the reverse)'],
    firstAction: 'Annotate both the Service and the pod template with the same config.linkerd.io/opaque-ports',
  },
});
