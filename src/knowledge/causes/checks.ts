// The knowledge base's entries for `linkerd check` anchors: each check's verdict (src/knowledge/
// checks*.ts) as a failure with causes, cited by the page that documents the anchor (linkerd.io's
// checks page, whose section for each anchor gives the remedy; data/checks/checks.json holds its
// text per docs version) and by the code that runs the check. One base for log messages and
// check anchors alike, so both can be listed, tested and exported the same way.

import { CHECK_VERDICTS } from '../checks.js';
import type { FailureKnowledge } from './types.js';

const CHECKS_PAGE = 'https://linkerd.io/2-edge/checks/#';
const HEALTHCHECK = 'https://github.com/linkerd/linkerd2/blob/edge-26.8.3/pkg/healthcheck/healthcheck.go';

/** Every check anchor with a verdict, as the base's entries (keyed `check:<anchor>`). */
export const CHECK_KNOWLEDGE: readonly FailureKnowledge[] = Object.entries(CHECK_VERDICTS).map(([anchor, verdict]) => ({
  signature: `check:${anchor}`,
  failure: verdict.meaning,
  causes: verdict.causes.map((text, i) => ({
    id: `check:${anchor}#${i + 1}`,
    title: text,
    why: text,
    action: verdict.firstAction,
    tells: [],
    sources: [
      { url: `${CHECKS_PAGE}${anchor}`, versions: verdict.fixByVersion ?? 'all' },
      { url: HEALTHCHECK, versions: 'all' },
    ],
  })),
}));
