// `linkerd-doctor install` and `uninstall`: the extension contract asks for manifests to pipe to
// `kubectl apply -f -` / `kubectl delete -f -`. linkerd-doctor runs on the machine that holds the
// captured files and has no resources in the cluster, so both print nothing on stdout and say why
// on stderr, exit 0.

import { TOOL_NAME } from '../core/docs.js';
import { EXIT_CLEAN } from '../report/exit-code.js';

export function nothingToInstallNotice(action: 'install' | 'uninstall'): string {
  const kubectl = action === 'install' ? 'kubectl apply -f -' : 'kubectl delete -f -';
  return (
    `${TOOL_NAME}: notice: ${action}: nothing to ${action === 'install' ? 'install in' : 'remove from'} the cluster; ` +
    `${TOOL_NAME} reads captured logs, metrics and DNS answers on this machine, so no manifest is printed and there is nothing to pipe to \`${kubectl}\`. ` +
    `Capture a bundle with \`${TOOL_NAME} collect\`, then \`${TOOL_NAME} analyze\` it; \`${TOOL_NAME} check\` checks this install.\n`
  );
}

export function runNothingToInstall(action: 'install' | 'uninstall', quiet: boolean): number {
  if (!quiet) process.stderr.write(nothingToInstallNotice(action));
  return EXIT_CLEAN;
}
