// What failfast's findings say per cause: the title, what it means and what to do, kept beside the
// reducer (index.ts) so that each stays readable.

export type Cause = 'no endpoints' | 'controller unreachable' | 'load shedding' | 'endpoints not ready or unreachable';

/** What failed, in the words of whoever calls the service; the mechanism (fail-fast) is in the message. */
export const TITLE: Record<Cause, (service: string) => string> = {
  'no endpoints': (service) => `Requests to ${service} fail: it has no endpoints`,
  'controller unreachable': (service) => `Requests to ${service} fail: the calling proxies lost their control plane`,
  'load shedding': (service) => `Requests to ${service} refused: its backends are saturated (load shedding)`,
  'endpoints not ready or unreachable': (service) => `Requests to ${service} fail: none of its endpoints answers`,
};

export const MEANING: Record<Cause, string> = {
  'no endpoints':
    'The destination controller reports no endpoints for it: no pod of the service is ready, the selector matches none, or the Service has no ports matching the target port.',
  'controller unreachable':
    'The same proxies cannot reach their own control plane (their destination/policy clients fail too), so they have no discovery for the service: the cause is the control plane, not the service (reconnect-storm and control-plane-unavailable report it when the logs hold enough of the outage).',
  'load shedding':
    'The proxies shed load: the in-flight or concurrency limit in front of the service is reached, so the backends are too slow or too few for the traffic.',
  'endpoints not ready or unreachable':
    'Endpoints are known but none answered within the fail-fast timeout: the pods are not ready, crash, or cannot be reached on the target port.',
};

export const REMEDIATION: Record<Cause, string> = {
  'no endpoints': [
    "1. Check the service has ready endpoints: kubectl get endpointslices -l kubernetes.io/service-name=<svc> -n <ns>; fix the selector, the target port or the pods' readiness.",
    "2. If the endpoints exist but the controller says none, look at the destination controller's logs (kubectl logs deploy/linkerd-destination -c destination) for watch errors.",
  ].join('\n'),
  'controller unreachable': [
    '1. Restore the control plane first, since proxies without discovery fail every service fast: kubectl -n linkerd get pods -o wide (restarts, OOMKilled, readiness of linkerd-destination), then kubectl -n linkerd logs deploy/linkerd-destination -c destination; the reconnect-storm and control-plane-unavailable findings, when present, say which controller failed and how.',
    '2. Then restart the proxies that stayed in fail-fast if they do not recover on their own (kubectl rollout restart).',
  ].join('\n'),
  'load shedding': [
    '1. Scale the backend out or make it faster; the proxies are refusing requests because the in-flight limit is reached.',
    '2. On proxies ≤ 2.10 the router capacity (100 concurrent targets) could be reached by clients that spread requests over many distinct hosts; upgrade, or route by Service name.',
  ].join('\n'),
  'endpoints not ready or unreachable': [
    '1. Check the backend pods: kubectl get pods and describe them (readiness failing, restarts, OOMKilled); check NetworkPolicies between client and server.',
    '2. If only a rollout caused it, use a readiness probe and maxUnavailable so ready endpoints are always left.',
  ].join('\n'),
};
