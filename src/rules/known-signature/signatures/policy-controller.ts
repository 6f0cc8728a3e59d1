// The policy controller and its Kubernetes watches.

import { L2, PROXY_PR, type KnownSignature } from '../signature.js';

export const POLICY_CONTROLLER_SIGNATURES: readonly KnownSignature[] = [
  {
    id: 'kube-api-tls-verify-failed',
    title: 'Controller cannot verify the Kubernetes API certificate',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['certificate verify failed'], pattern: 'certificate verify failed' },
    meaning:
      "The policy controller (a Rust kube client) could not verify the API server's TLS certificate, so its watches never start and the destination pod fails.",
    causes: [
      'A proxy in front of the API server (or a cert-manager/CA bundle setup) presenting a chain the service-account CA does not cover.',
      'The projected service-account CA bundle mounted in the pod does not match the API server.',
    ],
    fix: [
      {
        versions: 'all',
        action:
          'Check the API server certificate chain against /var/run/secrets/kubernetes.io/serviceaccount/ca.crt in the pod; remove the intercepting proxy or fix the CA bundle.',
      },
    ],
    coveredBy: ['control-plane-unavailable'],
    references: [`${L2}10697`, `${L2}10994`],
    examples: [
      {
        line: '2023-04-06T00:47:10.527667Z ERROR servers: kube_client::client::builder: failed with error error trying to connect: error:1416F086:SSL routines:tls_process_server_certificate:certificate verify failed:../ssl/statem/statem_clnt.c:1914: (unable to get local issuer certificate)',
        source: `${L2}10697 (GeroL)`,
      },
    ],
  },
  {
    id: 'policy-watch-failed',
    title: 'Policy controller watch stream failed',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['watch stream failed'], pattern: 'watch stream failed' },
    meaning:
      'A Kubernetes watch of the policy controller broke (connection reset, timeout) and is restarted; while it is down the controller does not see policy changes.',
    causes: ['API server restarts, load-balancer idle timeouts or network resets between the controller and the API server.', 'API server overload.'],
    fix: [
      {
        versions: 'stable-2.11',
        action:
          'Check the network path from the policy controller to the API server if the watch restarts often; occasional restarts are harmless. Later releases use kubert with backoff and log "stream failed" instead.',
      },
    ],
    references: [`${L2}8343`],
    examples: [
      {
        line: '2022-04-26T18:59:50.571586Z  INFO serverauthorizations: linkerd_policy_controller_k8s_api::watch: Failed error=watch stream failed: Error reading events stream: error reading a body from connection: error reading a body from connection: Connection reset by peer (os error 104)',
        source: `${L2}8343 (prydeep)`,
      },
    ],
  },
  {
    id: 'policy-watch-restarting',
    title: 'Policy controller restarting a watch',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['Restarting'], pattern: 'k8s_api::watch: Restarting' },
    meaning: 'The policy controller restarts a Kubernetes watch after it failed; it follows a "watch stream failed" line.',
    causes: ['See policy-watch-failed.'],
    fix: [
      { versions: 'stable-2.11', action: 'Count these against time: one every few minutes is normal churn, a tight loop means the API server is unreachable.' },
    ],
    references: [`${L2}8343`],
    examples: [
      { line: '2022-04-26T18:59:51.572722Z  INFO serverauthorizations: linkerd_policy_controller_k8s_api::watch: Restarting', source: `${L2}8343 (prydeep)` },
    ],
  },
  {
    id: 'kubert-stream-failed',
    title: 'Controller Kubernetes watch failed (kubert)',
    family: 'policy-controller',
    match: { records: ['proxy-log'], literals: ['stream failed'], pattern: 'kubert::errors: stream failed' },
    meaning: 'A Kubernetes list/watch of the policy controller (or another kubert-based component) failed; kubert retries it with a backoff.',
    causes: [
      'The API server closed or reset the connection (upgrades, idle timeouts).',
      'TLS or authentication errors towards the API server (read the error text).',
    ],
    fix: [
      {
        versions: 'Linkerd ≥ 2.12',
        action: 'Fix the API server connectivity named in the error if the failures persist (they block policy updates); transient ones are retried.',
      },
    ],
    references: [`${L2}11156`, `${L2}10697`],
    examples: [
      {
        line: '2023-07-27T05:48:27.240045Z  INFO services: kubert::errors: stream failed error=failed to start watching object: HyperError: connection closed before message completed',
        source: `${L2}11156 (valentinwidmer)`,
      },
    ],
  },
  {
    id: 'policy-controller-unexpected-response',
    title: 'Unexpected control-plane response, retrying',
    family: 'control-plane',
    match: {
      records: ['proxy-log'],
      literals: ['controller response; retrying with a backoff'],
      pattern: '(?:policy|destination) controller response; retrying with a backoff',
    },
    meaning: 'A policy or profile watch of the proxy ended with an error status and is retried with a backoff; one loop per watched port or target.',
    causes: [
      '`Deadline expired`: the controller accepted the stream but sent nothing within 3 s (overloaded or stream-limited controller).',
      '`Unavailable`/`service in fail-fast`: the controller pool is down.',
      'Proxy and control plane versions that do not share the API (`Unimplemented`).',
    ],
    fix: [
      {
        versions: '< edge-24.5.3 (Linkerd < 2.16)',
        action: 'Upgrade the control plane (linkerd2 #12598 removed the destination stream limit) or scale the controllers.',
      },
      { versions: 'all', action: 'Check the controller pods and their resource limits; restart proxies injected by an older release.' },
    ],
    knownFix: 'destination-stream-limit',
    coveredBy: ['control-plane-unavailable', 'reconnect-storm'],
    references: [`${L2}14298`, `${PROXY_PR}2587`],
    examples: [
      {
        line: '1753814397982\t2025-07-29T18:39:57.982Z\t[ 31502.170125s]  WARN ThreadId(01) watch{port=11211}: linkerd_app_inbound::policy::api: Unexpected policy controller response; retrying with a backoff grpc.status=Deadline expired before operation could complete grpc.message=""',
        source: `${L2}14298 (matt-mercer)`,
      },
    ],
  },
];
