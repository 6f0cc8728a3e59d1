// Post-processing: tells each finding whether the proxies it concerns already run the release that
// fixes its symptom. Adds `fixStatus` (structured) and one "Version check" paragraph to the
// remediation, so every output format shows it without knowing about versions.

import type { Finding, FixStatus } from '../core/types.js';
import { evidenceNumber, podsOfFinding } from '../core/evidence.js';
import { KNOWN_FIXES, hasFix, parseLinkerdRelease, parseProxyVersion, releaseHasFix, type KnownFix } from '../knowledge/fixes.js';
import { findRegistered } from '../rules/index.js';
import type { FixCandidate } from '../kit/incident.js';
import type { PodVersion, ProxyVersions } from './versions.js';

/** The known fixes a finding's rule names for it, in the order of KNOWN_FIXES. */
export function fixesFor(finding: FixCandidate): KnownFix[] {
  const links = findRegistered(finding.ruleId)?.incident?.fixes ?? [];
  return KNOWN_FIXES.filter((fix) => links.some((l) => l.fix === fix.id && (l.when?.(finding) ?? true)));
}

export function fixStatusFor(finding: FixCandidate, fix: KnownFix, versions: ProxyVersions): FixStatus {
  const all = [...versions.byPod.values()];
  let basis: string;
  let considered: PodVersion[];
  let inferred = false;
  if (fix.side === 'control-plane') {
    considered = all.filter((p) => p.controlPlane);
    basis = "the control-plane pods' proxies (they come with the control-plane release)";
    if (considered.length === 0) {
      considered = all;
      inferred = true;
      basis = 'the data-plane proxies (the control plane is at least as new as the proxies it injected)';
    }
  } else {
    const named = new Set(podsOfFinding(finding));
    considered = all.filter((p) => named.has(p.pod) && !p.controlPlane);
    const affected = evidenceNumber(finding, 'podsAffected');
    // Evidence lists are capped; say how many of the affected pods the check could see.
    basis =
      typeof affected === 'number' && affected > considered.length
        ? `the ${considered.length} of ${affected} affected pods listed in this finding`
        : `the ${considered.length} pod${considered.length === 1 ? '' : 's'} named in this finding`;
    if (considered.length === 0) {
      considered = all.filter((p) => !p.controlPlane);
      basis = "every data-plane proxy in the bundle (none of this finding's pods reported a version)";
    }
  }

  const groups = new Map<string, { version: string; linkerd: string; pods: number; hasFix: boolean }>();
  for (const p of considered) {
    const key = p.version ?? p.release!;
    const g = groups.get(key) ?? { version: key, linkerd: p.linkerd, pods: 0, hasFix: podHasFix(p, fix) };
    g.pods++;
    groups.set(key, g);
  }
  const list = [...groups.values()].sort((a, b) => b.pods - a.pods || a.version.localeCompare(b.version));
  const fixed = list.filter((g) => g.hasFix).reduce((n, g) => n + g.pods, 0);
  const unfixed = list.filter((g) => !g.hasFix).reduce((n, g) => n + g.pods, 0);
  let status: FixStatus['status'];
  if (list.length === 0) status = 'unknown';
  // A newer data plane proves a newer control plane; an older one proves nothing about it.
  else if (inferred) status = unfixed === 0 ? 'fixed' : 'unknown';
  else status = unfixed === 0 ? 'fixed' : fixed === 0 ? 'not-fixed' : 'mixed';

  const where = `${fix.fixedInProxy}, ${fix.fixedInLinkerd}`;
  const seen = list.map((g) => `${g.version}${g.linkerd !== g.version ? ` (${g.linkerd})` : ''} on ${g.pods} pod${g.pods === 1 ? '' : 's'}`).join(', ');
  const note =
    status === 'unknown' && list.length === 0
      ? `Version unknown: no proxy_build_info or release banner in the bundle, so it cannot tell whether the fix (${fix.change}; ${where}) is deployed.`
      : status === 'unknown'
        ? `Control-plane version unknown: ${basis} run ${seen}, which does not show whether the control plane has ${fix.change} (${where}).`
        : status === 'fixed'
          ? `Already fixed: ${basis} run ${seen}, which include ${fix.change} (${where}); the cause lies elsewhere.`
          : status === 'not-fixed'
            ? `Not fixed in this version: ${basis} run ${seen}, older than ${where} (${fix.change}). Upgrade, or meanwhile ${fix.mitigation}.`
            : `Partly fixed: ${basis} run ${seen}; ${unfixed} pod${unfixed === 1 ? '' : 's'} predate ${where} (${fix.change}).`;
  return {
    fix: fix.id,
    symptom: fix.symptom,
    fixedIn: { proxy: fix.fixedInProxy, linkerd: fix.fixedInLinkerd },
    status,
    basis,
    versions: list,
    note,
    references: [...fix.references],
  };
}

/** A logged Linkerd release wins over a proxy version: a controller's release is the control plane's. */
function podHasFix(p: PodVersion, fix: KnownFix): boolean {
  const release = parseLinkerdRelease(p.release ?? undefined);
  if (release && (fix.side === 'control-plane' || !p.version)) return releaseHasFix(release, fix);
  return hasFix(parseProxyVersion(p.version!)!, fix);
}

/** Returns the findings with `fixStatus` set and the version check appended to the remediation. */
export function annotateFixStatus(findings: readonly Finding[], versions: ProxyVersions): Finding[] {
  return findings.map((finding) => {
    const fixes = fixesFor(finding);
    if (fixes.length === 0) {
      const reason = findRegistered(finding.ruleId)?.incident?.versionIndependent;
      return reason ? { ...finding, fixStatus: [], remediation: `${finding.remediation}\nVersion check: ${reason}.` } : finding;
    }
    const fixStatus = fixes.map((fix) => fixStatusFor(finding, fix, versions));
    const lines = fixStatus.map((s) => `Version check (${s.fix}): ${s.note}`);
    return { ...finding, fixStatus, remediation: `${finding.remediation}\n${lines.join('\n')}` };
  });
}
