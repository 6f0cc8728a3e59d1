// The shape of one catalogue entry, and the reference URL prefixes the entries share.

export type SignatureFamily =
  | 'identity'
  | 'failfast'
  | 'dns'
  | 'protocol-detection'
  | 'authorization'
  | 'http2'
  | 'policy-controller'
  | 'fd-exhaustion'
  | 'control-plane'
  | 'data-plane'
  | 'profile'
  | 'configuration'
  | 'coredns'
  /** The Go controllers: destination, identity, proxy-injector. */
  | 'controller'
  /** Node-level components: proxy-init, linkerd-cni, the network validator, the CNI repair controller. */
  | 'node'
  /** The multicluster extension's service mirror. */
  | 'multicluster'
  | 'benign';

export interface SignatureExample {
  /** The line as it was pasted (collector prefixes kept when the paste had them). */
  line: string;
  /** Where it was pasted: thread URL (and who, when known). */
  source: string;
  /** Set when the line was joined or completed from the thread; says how. */
  note?: string;
}

export interface SignatureFix {
  /** Which releases the action applies to, e.g. "all", "≤ stable-2.9", "Linkerd ≥ 2.12". */
  versions: string;
  action: string;
}

export interface KnownSignature {
  /** kebab-case, unique, stable: it is the id `explain` takes and findings carry. */
  id: string;
  title: string;
  family: SignatureFamily;
  match: {
    /** Record kinds the entry reads. */
    records: readonly ('proxy-log' | 'coredns-message' | 'coredns-query')[];
    /** One of these substrings is in every matching line (case-sensitive). */
    literals: readonly string[];
    /** Regex source tested against the line text: `.*`-joined linear segments, no look-arounds or back-references; see catalogue.ts. */
    pattern: string;
    /** Levels as parsed (proxy: TRACE…ERROR; CoreDNS: INFO, WARNING, ERROR, FATAL); any when absent. */
    levels?: readonly string[];
    /** Only while the proxy has been up less than this many seconds (start-up races). */
    maxUptimeSeconds?: number;
  };
  /** What the line means, one or two sentences. */
  meaning: string;
  /** Likely causes, most likely first. */
  causes: readonly string[];
  fix: readonly SignatureFix[];
  /** Id of an entry in src/knowledge/fixes.ts whose release changes this signature. */
  knownFix?: string;
  /** Threshold rules that judge the sustained form of this signature. */
  coveredBy?: readonly string[];
  /**
   * Healthy meshes log this now and then (rollouts, probes, keep-alive races), so a full log holds
   * some and its count alone means nothing. Reported from excerpts only, where no rate can be
   * judged; in longer logs the rules in `coveredBy` judge its sustained form.
   */
  background?: true;
  /** Upstream issues and PRs. */
  references: readonly string[];
  examples: readonly SignatureExample[];
}

export const L2 = 'https://github.com/linkerd/linkerd2/issues/';
export const PROXY_PR = 'https://github.com/linkerd/linkerd2-proxy/pull/';
export const CD = 'https://github.com/coredns/coredns/issues/';
