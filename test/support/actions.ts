// What makes a finding's first step an action (issue 28): shared by the finding-actions meta-test and
// the knowledge base's test.

/**
 * An action starts with what to do: a verb, or a command in backticks. Words a remediation may
 * open with that tell instead ("Harmless…", "Usually nothing", "If it…", "Likely causes…") fail.
 */
const VERBS = new Set(
  'add allow annotate bundle count authorize bring capture change check collect compare confirm correlate create decide delete disable drop enable find fix get give ignore increase inspect install issue keep let look make mark match measure mesh move point query raise read reduce regenerate relieve remove replace re-apply re-inject re-issue reproduce resolve restart restore retry roll rotate route run scale see send set speed start stop switch synchronise test time treat update upgrade use validate verify wait watch'.split(
    ' ',
  ),
);

export function actionProblem(action: string): string | null {
  const text = action.replace(/^\s*\d+\.\s*/, '').trim();
  if (text === '') return 'empty';
  if (/…$|\.\.\.$/.test(text)) return 'cut';
  if (!/[.)`"'\]]$/.test(text)) return 'does not end a sentence';
  if (text.startsWith('`') || /^(kubectl|linkerd|dig)\b/.test(text)) return null;
  const first = text.split(/[\s:,]/)[0]!.toLowerCase();
  return VERBS.has(first) ? null : `starts with "${first}", not a verb`;
}
