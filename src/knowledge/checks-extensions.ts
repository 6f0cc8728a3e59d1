// Verdicts of the CNI plugin's and the viz, jaeger and multicluster extensions' checks, keyed by
// hint anchor; see checks.ts.

import { CNI_INSTALL, JAEGER_INSTALL, MC_INSTALL, VIZ_INSTALL, exists, podsRunning, proxiesHealthy, proxyVersion, type CheckVerdict } from './checks-model.js';
import { lookupTable } from '../util/dict.js';

export const EXTENSION_VERDICTS: Readonly<Record<string, CheckVerdict>> = lookupTable({
  // ------------------------------------------------------------------ CNI
  'cni-plugin-cm-exists': exists('the CNI plugin ConfigMap is', CNI_INSTALL),
  'cni-plugin-cr-exists': exists('the CNI plugin ClusterRole is', CNI_INSTALL),
  'cni-plugin-crb-exists': exists('the CNI plugin ClusterRoleBinding is', CNI_INSTALL),
  'cni-plugin-ds-exists': exists('the CNI plugin DaemonSet is', CNI_INSTALL),
  'cni-plugin-psp-exists': exists('the CNI plugin PodSecurityPolicy is', CNI_INSTALL),
  'cni-plugin-r-exists': exists('the CNI plugin Role is', CNI_INSTALL),
  'cni-plugin-rb-exists': exists('the CNI plugin RoleBinding is', CNI_INSTALL),
  'cni-plugin-sa-exists': exists('the CNI plugin ServiceAccount is', CNI_INSTALL),
  'cni-plugin-ready': {
    meaning: 'the CNI plugin is not running on every node: {detail}',
    causes: ['a node where the DaemonSet pod cannot start (taints, resources)', 'a new node not yet covered'],
    firstAction: 'Compare kubectl -n linkerd-cni get ds and kubectl -n linkerd-cni get pods -o wide with the nodes; describe the missing pod',
  },
  // ------------------------------------------------------------------ viz
  'l5d-viz-ns-exists': exists('the linkerd-viz namespace is', VIZ_INSTALL),
  'l5d-viz-cr-exists': exists('linkerd-viz ClusterRoles are', VIZ_INSTALL),
  'l5d-viz-crb-exists': exists('linkerd-viz ClusterRoleBindings are', VIZ_INSTALL),
  'l5d-viz-existence-client': {
    meaning: 'the CLI cannot build a client for linkerd-viz: {detail}',
    causes: ['the kubeconfig is unusable'],
    firstAction: 'Check kubectl access: kubectl -n linkerd-viz get pods',
  },
  'l5d-viz-pods-injection': {
    meaning: 'linkerd-viz pods are not injected with the proxy: {detail}',
    causes: ['the namespace lacks linkerd.io/inject=enabled, or the injector was down when the pods were created'],
    firstAction: 'Restart the viz pods once the injector runs: kubectl -n linkerd-viz rollout restart deploy',
  },
  'l5d-viz-pods-running': podsRunning('linkerd-viz', 'linkerd-viz'),
  'l5d-viz-proxy-healthy': proxiesHealthy('linkerd-viz', 'linkerd-viz'),
  'l5d-viz-proxy-cp-version': proxyVersion('linkerd-viz', 'linkerd-viz', 'control plane'),
  'l5d-viz-proxy-cli-version': proxyVersion('linkerd-viz', 'linkerd-viz', 'cli'),
  'l5d-viz-prometheus': {
    meaning: "linkerd-viz's Prometheus is not installed or not configured: {detail}",
    causes: ['viz installed with prometheus.enabled=false and no prometheusUrl', 'the Prometheus pod not running'],
    firstAction: 'Check kubectl -n linkerd-viz get pods; with your own Prometheus set prometheusUrl in the viz values',
  },
  'l5d-viz-data-plane-prom-authz': {
    meaning: "linkerd-viz's Prometheus is not authorized to scrape the meshed pods: {detail}",
    causes: ['a default-deny policy in the namespace without the authorization for Prometheus'],
    firstAction: 'Create the authorization for Prometheus in that namespace: linkerd viz allow-scrapes --namespace {namespace} | kubectl apply -f -',
  },
  'l5d-viz-metrics-api': {
    meaning: "linkerd-viz's metrics API fails its self-check: {detail}",
    causes: ['the metrics-api pod not ready', 'metrics-api cannot reach Prometheus'],
    firstAction: 'Read its log: kubectl -n linkerd-viz logs deploy/metrics-api',
  },
  'l5d-tap-api': {
    meaning: 'the tap APIService is not available: the Kubernetes API server cannot reach tap ({detail})',
    causes: [
      'the API server cannot reach the tap Service (managed API servers outside the pod network, firewall rules between control-plane nodes and pods)',
      "the API server runs with an HTTP(S)_PROXY whose NO_PROXY does not cover the tap Service's IP, so the call goes to the outbound proxy and times out",
      'the tap pod not ready, or its certificate not trusted by the APIService caBundle',
    ],
    firstAction:
      'Read why the APIService is unavailable: kubectl get apiservice v1alpha1.tap.linkerd.io -o yaml (status.conditions), and check the API server can reach the tap pod on 8089',
  },
  // ------------------------------------------------------------------ jaeger
  'l5d-jaeger-ns-exists': exists('the linkerd-jaeger namespace is', JAEGER_INSTALL),
  'l5d-jaeger-oc-cm-exists': exists('the collector ConfigMap is', JAEGER_INSTALL),
  'l5d-jaeger-sc-exists': exists('the collector and jaeger ServiceAccounts are', JAEGER_INSTALL),
  'l5d-jaeger-pods-injection': {
    meaning: 'linkerd-jaeger pods are not injected with the proxy: {detail}',
    causes: ['the injector was down when the pods were created'],
    firstAction: 'Restart them once the injector runs: kubectl -n linkerd-jaeger rollout restart deploy',
  },
  'l5d-jaeger-pods-running': podsRunning('linkerd-jaeger', 'linkerd-jaeger'),
  'l5d-jaeger-proxy-healthy': proxiesHealthy('linkerd-jaeger', 'linkerd-jaeger'),
  'l5d-jaeger-proxy-cp-version': proxyVersion('linkerd-jaeger', 'linkerd-jaeger', 'control plane'),
  'l5d-jaeger-proxy-cli-version': proxyVersion('linkerd-jaeger', 'linkerd-jaeger', 'cli'),
  // ------------------------------------------------------------------ multicluster
  'l5d-multicluster-link-crd-exists': exists('the Link CRD is', MC_INSTALL),
  'l5d-multicluster-links-are-valid': {
    meaning: 'a Link resource is not valid: {detail}',
    causes: ['a Link created by a CLI of another version, or edited by hand'],
    firstAction: 'Re-create the link: linkerd --context=<target> multicluster link --cluster-name <target> | kubectl --context=<source> apply -f -',
  },
  'l5d-multicluster-links-version': {
    meaning: 'a Link was created by another CLI version: {detail}',
    causes: ['a link made before an upgrade'],
    firstAction: 'Re-create the link with the current CLI (linkerd multicluster link … | kubectl apply -f -)',
    benignWarning: true,
  },
  'l5d-smc-target-clusters-access': {
    meaning: 'the service mirror cannot access the remote cluster: {detail}',
    causes: [
      'the Link refers to a credentials Secret that no longer exists (a stale Link after the target was unlinked or renamed)',
      'the kubeconfig in the Secret expired or points at an address unreachable from this cluster',
    ],
    firstAction:
      'Check the Secret the Link names (kubectl -n linkerd-multicluster get secret {names}); re-link to create it, or delete the stale Link: linkerd multicluster unlink --cluster-name <target> | kubectl delete -f -',
  },
  'l5d-multicluster-clusters-share-anchors': {
    meaning: 'the linked clusters do not share a trust anchor: {detail}',
    causes: ['clusters installed with different roots', 'the check cannot read the remote cluster (its credentials fail) and reports it here too'],
    firstAction: 'Install both clusters with the same trust anchor (each issuer signed by it); when the credentials check fails too, fix that first',
    certificate: 'trust-anchor',
  },
  'l5d-multicluster-source-rbac-correct': {
    meaning: 'the service mirror lacks permissions it needs: {detail}',
    causes: ['RBAC of another multicluster version'],
    firstAction: `Re-apply the multicluster extension: ${MC_INSTALL}`,
  },
  'l5d-multicluster-service-mirror-running': {
    meaning: 'a service mirror controller is not running: {detail}',
    causes: ['the pod crash-looping (credentials, RBAC)', 'the Link deleted without its controller'],
    firstAction: 'Look at it: kubectl -n linkerd-multicluster get pods; kubectl -n linkerd-multicluster logs deploy/linkerd-service-mirror-<target>',
  },
  'l5d-multicluster-managed-controllers': {
    meaning: 'a Link has a service mirror not managed by the extension: {detail}',
    causes: ['a link created with linkerd multicluster link before 2.18 controllers were managed by the chart'],
    firstAction: 'Move the link to the controllers of the extension chart (controllers value of linkerd-multicluster) as the 2.18 upgrade notes describe',
    benignWarning: true,
  },
  'l5d-multicluster-gateways-endpoints': {
    meaning: 'the gateway of a linked cluster is unreachable: its liveness probes fail ({detail})',
    causes: [
      "the target cluster's gateway is not reachable from this cluster (its LoadBalancer address, firewall, port 4143/4191)",
      'the gateway pod is down or not ready on the target',
      'a Link created without a gateway (pod-to-pod multicluster): 2.14 checks probe gateways it does not have, a false failure',
    ],
    firstAction:
      'Check the gateway from both sides: linkerd multicluster gateways; on the target kubectl -n linkerd-multicluster get svc linkerd-gateway (its external address must be reachable from here)',
    fixByVersion: '2.14.0-2.14.1 reported gateway-less links as failing; later releases skip them',
  },
  'l5d-multicluster-target-gateways-alive': {
    meaning: 'a target cluster gateway is not alive: {detail}',
    causes: ["the target's gateway unreachable from this cluster, or down"],
    firstAction: 'Check it: linkerd multicluster gateways, and the gateway Service on the target',
  },
  'l5d-multicluster-services-endpoints': {
    meaning: 'mirrored services have no endpoints: {detail}',
    causes: ['the gateway of the target is unreachable, so mirrors point nowhere', 'the exported Service has no ready pods on the target'],
    firstAction: 'Check the gateway (linkerd multicluster gateways) and the exported Service on the target',
  },
  'l5d-multicluster-orphaned-services': {
    meaning: 'mirror services remain without a Link: {detail}',
    causes: ['a link removed without deleting its mirrors'],
    firstAction: 'Delete the orphaned mirror services it names (kubectl delete svc -n <ns> <name>)',
  },
  'l5d-multicluster-proxy-healthy': proxiesHealthy('multicluster', 'linkerd-multicluster'),
  'l5d-multicluster-proxy-cp-version': proxyVersion('multicluster', 'linkerd-multicluster', 'control plane'),
  'l5d-multicluster-proxy-cli-version': proxyVersion('multicluster', 'linkerd-multicluster', 'cli'),
  'l5d-multicluster-cluster-role-exist': exists('service-mirror ClusterRoles are', MC_INSTALL),
  'l5d-multicluster-cluster-role-binding-exist': exists('service-mirror ClusterRoleBindings are', MC_INSTALL),
  'l5d-multicluster-role-exist': exists('service-mirror Roles are', MC_INSTALL),
  'l5d-multicluster-role-binding-exist': exists('service-mirror RoleBindings are', MC_INSTALL),
  'l5d-multicluster-service-account-exist': exists('service-mirror ServiceAccounts are', MC_INSTALL),
  'l5d-multicluster-daisy-chaining': {
    meaning: 'a mirrored service is exported again (daisy chaining): {detail}',
    causes: ['a mirror Service labelled for export'],
    firstAction: 'Remove the export label from mirrored Services',
    benignWarning: true,
  },
  'l5d-multicluster-gateways-exist': {
    meaning: 'a referenced gateway is not valid: {detail}',
    causes: ['the gateway Service or its annotations missing on the target'],
    firstAction: 'Check the gateway Service on the target: kubectl -n linkerd-multicluster get svc linkerd-gateway -o yaml',
  },
});
