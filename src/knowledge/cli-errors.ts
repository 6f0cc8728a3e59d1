// What the errors `linkerd install` and `linkerd upgrade` print mean, from linkerd2 cli/cmd/install.go
// and upgrade.go (the messages are matched by the fixed words the source prints), with the first
// thing to do. Certificate errors (x509 wording) are told by certificates.ts instead.

export interface CliErrorVerdict {
  /** Fixed words of the message, as the source prints them. */
  words: string;
  meaning: string;
  firstAction: string;
  severity: 'error' | 'warning' | 'info';
}

export const CLI_ERRORS: readonly CliErrorVerdict[] = [
  {
    words: 'Linkerd CRDs must be installed first',
    meaning: 'the Linkerd CRDs are not installed: since 2.12 they are applied in a step of their own, before the control plane',
    firstAction:
      'Install the CRDs first: linkerd install --crds | kubectl apply -f - (for an upgrade: linkerd upgrade --crds | kubectl apply -f -), then the control plane',
    severity: 'error',
  },
  {
    words: 'ConfigMap/linkerd-config already exists',
    meaning: 'Linkerd is already installed in this namespace: install refuses to overwrite it',
    firstAction:
      'Upgrade the existing installation instead (linkerd upgrade | kubectl apply -f -), or remove it first (linkerd uninstall | kubectl delete -f -)',
    severity: 'error',
  },
  {
    words: 'does not validate against the trust anchors of the following pods',
    meaning: 'the new issuer is not signed by the trust anchors the listed pods hold: those proxies still trust an older bundle and would refuse it',
    firstAction: 'Restart the pods it lists so they load the current trust bundle (kubectl rollout restart of their workloads), then run the upgrade again',
    severity: 'error',
  },
  {
    words: 'cannot update issuer certificates if you are using external cert management solution',
    meaning: 'the issuer is managed outside Linkerd (an external issuer such as cert-manager): linkerd upgrade cannot replace it',
    firstAction: 'Rotate the issuer where it is managed: with cert-manager, kubectl -n linkerd describe certificate linkerd-identity-issuer and renew it there',
    severity: 'error',
  },
  {
    words: 'failed to load stored values',
    meaning: 'linkerd upgrade cannot read the values the installation was made with (the linkerd-config-overrides Secret)',
    firstAction:
      'Upgrade with the tool that installed it: if Helm, helm upgrade linkerd-control-plane linkerd/linkerd-control-plane -n linkerd --reuse-values; otherwise check kubectl -n linkerd get secret linkerd-config-overrides',
    severity: 'error',
  },
  {
    words: 'linkerd-config-overrides is missing',
    meaning: 'the linkerd-config-overrides Secret lacks its data: linkerd upgrade cannot tell how Linkerd was installed',
    firstAction: 'Upgrade with the tool that installed it (Helm: helm upgrade … --reuse-values), or pass every install flag again to linkerd upgrade',
    severity: 'error',
  },
  {
    words: 'because they are already installed by an external source',
    meaning: 'the Gateway API CRDs are already installed by something else, so Linkerd must not install its own',
    firstAction: 'Set installGatewayAPI=false (linkerd install --set installGatewayAPI=false, or the Helm value) and install again',
    severity: 'error',
  },
  {
    words: 'Rotating the trust anchors will affect existing proxies',
    meaning: 'this upgrade changes the trust anchors: running proxies keep the old bundle until restarted',
    firstAction: 'Restart every meshed workload after applying the upgrade (kubectl rollout restart deploy -n <namespace>), after the control plane',
    severity: 'info',
  },
];

/** The verdict of an install or upgrade message, or null. */
export function cliErrorOf(text: string): CliErrorVerdict | null {
  return CLI_ERRORS.find((e) => text.includes(e.words)) ?? null;
}
