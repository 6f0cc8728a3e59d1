// `analyze --redact`: one transform over the report model, before any formatter runs, so every
// format shows the same pseudonyms and none can leak what another hides. IP addresses (v4 and
// v6), pod names, namespaces, workloads, containers, hostnames and FQDNs, pod UIDs and
// pod-template hashes become `ip-1`, `pod-1`, `ns-1`, `workload-1`, `container-1`, `host-1`,
// `uid-1`, `hash-1`: the same input gets the same pseudonym everywhere in the run, so the report
// still says which findings share a pod or a target. Service accounts (`system:serviceaccount:
// <ns>:<name>`) become `account-1`, e-mail addresses `email-1`; secrets are never pseudonymised
// but replaced by `[redacted]`: JWTs, `Bearer`/`Basic` credentials and the values of credential
// parameters (`token=`, `password=`, `api_key=`, signed-URL signatures…), so a redacted report
// says that a credential was there without letting two reports be joined on it.
//
// Linkerd's and Kubernetes' own names (the `linkerd` namespace, linkerd-destination,
// linkerd-dst-headless, kube-system, coredns…) stay: they are the same in every cluster, say
// nothing about the user's, and the findings would be unreadable without them. Loopback and
// unspecified addresses stay for the same reason.

import { isIPv4, isIPv6 } from 'node:net';
import type { Report } from './report.js';
import { lookupTable } from '../util/dict.js';

type Category = 'ip' | 'pod' | 'ns' | 'workload' | 'container' | 'host' | 'uid' | 'hash' | 'file' | 'account' | 'email';

/**
 * Categories whose names are built into other names: Linkerd's ClusterRoles and bindings are
 * `linkerd-<namespace>-destination`, a service account's name often repeats its namespace. Their
 * tokens are replaced inside hyphenated words too, not only as whole words.
 */
const EMBEDDED: ReadonlySet<Category> = new Set(['ns', 'account']);

/** Names every Linkerd cluster has; keeping them keeps findings meaningful and reveals nothing. */
const WELL_KNOWN = new Set([
  // namespaces
  'linkerd',
  'linkerd-viz',
  'linkerd-jaeger',
  'linkerd-multicluster',
  'linkerd-smi',
  'linkerd-cni',
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'default',
  // control-plane workloads, Services and containers
  'linkerd-destination',
  'linkerd-identity',
  'linkerd-proxy-injector',
  'linkerd-dst',
  'linkerd-dst-headless',
  'linkerd-policy',
  'linkerd-policy-validator',
  'linkerd-sp-validator',
  'linkerd-identity-headless',
  'linkerd-proxy',
  'linkerd-init',
  'linkerd-network-validator',
  'linkerd-cni',
  'destination',
  'identity',
  'policy',
  'sp-validator',
  'proxy-injector',
  // cluster DNS
  'coredns',
  'kube-dns',
  'node-local-dns',
  'node-cache',
  // FQDN labels of Kubernetes and Linkerd naming schemes
  'svc',
  'cluster',
  'local',
  'serviceaccount',
  'identity',
  'pod',
]);

/** Public domains the tool's own text cites (docs, annotations): not the user's hosts. */
const PUBLIC_SUFFIXES = [
  'kubernetes.io',
  'k8s.io',
  'linkerd.io',
  'github.com',
  'githubusercontent.com',
  'traefik.io',
  'nginx.org',
  'prometheus.io',
  'grafana.com',
  'coredns.io',
  'buoyant.io',
  'buoyant.cloud',
  'monitoring.coreos.com',
];

/** Endings that make a dotted word a file name (proxy-metrics.txt.gz), not a host. */
const FILE_ENDINGS = new Set([
  'gz',
  'tgz',
  'tar',
  'log',
  'txt',
  'json',
  'yaml',
  'yml',
  'md',
  'html',
  'htm',
  'sarif',
  'xml',
  'prom',
  'csv',
  'js',
  'ts',
  'png',
  'out',
]);

/** Object keys whose string values name a thing of that category. */
const KEY_CATEGORIES: Record<string, Category> = lookupTable({
  pod: 'pod',
  pods: 'pod',
  namespace: 'ns',
  workload: 'workload',
  workloads: 'workload',
  container: 'container',
  templateHash: 'hash',
});

/** Kubernetes object references in text: `deployment shop/search`, `deployment/shop/search`. */
const KIND_REFERENCE =
  /\b(?:deployment|deploy|statefulset|sts|daemonset|ds|replicaset|rs|job|cronjob|service|svc|pod|po)[ /]([a-z0-9][-a-z0-9.]*)\/([a-z0-9][-a-z0-9.]*)/g;
/** `namespace/name` as a whole value (evidence.destinations[].destination). */
const NAMESPACED_NAME = /^([a-z0-9][-a-z0-9]*)\/([a-z0-9][-a-z0-9.]*)$/;
/** Prometheus labels in quoted metric lines: `dst_namespace="shop"`, `pod="web-1"`. */
const LABEL_PAIR = /\b([a-z_]*?)(namespace|pod|deployment|statefulset|daemonset|service|workload|container|pod_template_hash|node|host|hostname)="([^"]*)"/g;
/** A path under /var/log/pods: `<namespace>_<pod>_<uid>`. */
const POD_LOG_DIR = /(?:^|\/)([a-z0-9][-a-z0-9]*)_([a-z0-9][-a-z0-9.]*)_([0-9a-f-]{36})(?=\/|$)/g;

/** A service account's user name, as the API server's RBAC errors and `kubectl auth can-i --as` give it. */
const SERVICE_ACCOUNT = /\bsystem:serviceaccounts?:([a-z0-9][-a-z0-9.]{0,252}):([a-z0-9][-a-z0-9.]{0,252})/g;

/** Parameter names whose value is a credential (OAuth, API keys, cloud signed URLs, sessions). */
const CREDENTIAL_PARAMETERS = [
  'access_?token',
  'id_?token',
  'refresh_?token',
  'auth_?token',
  'token',
  'Token',
  'TOKEN',
  'api_?key',
  'apikey',
  'API_?KEY',
  'secret',
  'client_?secret',
  'password',
  'Password',
  'PASSWORD',
  'passwd',
  'pwd',
  'sig',
  'signature',
  'Signature',
  'X-Amz-Signature',
  'X-Amz-Credential',
  'X-Amz-Security-Token',
  'x-amz-signature',
  'x-amz-credential',
  'x-amz-security-token',
  'sessionid',
  'session_?token',
].join('|');
/**
 * Secrets, replaced whole. A JWT (header and payload are base64url JSON, so both start `eyJ`);
 * an HTTP credential after its scheme; the value of a parameter whose name says it is a
 * credential, in a URL query (`?token=`), logfmt (`token="…"`) or a header-like `key: value`.
 * Each starts only where its run starts (the look-behinds), so a long run is tried once: linear.
 */
const SECRET_PATTERN =
  '(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{4,4096}\\.eyJ[A-Za-z0-9_-]{0,8192}\\.[A-Za-z0-9_-]{0,4096})(?![A-Za-z0-9_-])' +
  '|(?<![A-Za-z0-9])((?:Bearer|Basic)\\s{1,8})([A-Za-z0-9._~+/=-]{1,8192})' +
  '|(?<![A-Za-z0-9_-])((?:' +
  CREDENTIAL_PARAMETERS +
  ')=\\\\?"?|(?:password|Password|passwd|token|Token|api_?key|client_?secret): ?)([^\\s&"\\\\;,]{1,8192})';
/** An e-mail address (RFC 5321's local part, simplified; a host of two or more labels). */
const EMAIL = '(?<![A-Za-z0-9._%+-])([A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\\.){1,8}[A-Za-z]{2,63})(?![A-Za-z0-9-])';

/** Generated pod names: Deployment (`<name>-<template hash>-<5>`), DaemonSet (`<name>-<5>`), StatefulSet (`<name>-<ordinal>`). */
const POD_OF_DEPLOYMENT = /^([a-z0-9][-a-z0-9]*?)-([bcdfghjklmnpqrstvwxz2456789]{6,10})-[bcdfghjklmnpqrstvwxz2456789]{5}$/;
const POD_OF_DAEMONSET = /^([a-z0-9][-a-z0-9]*?)-()[bcdfghjklmnpqrstvwxz2456789]{5}$/;
const POD_OF_STATEFULSET = /^([a-z0-9][-a-z0-9]*?)-()\d{1,4}$/;

const UUID = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';
const IPV4 = '(?:\\d{1,3}\\.){3}\\d{1,3}';
const IPV6 = '[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?::' + IPV4 + ')?';
/** An IPv6 zone (`fe80::1%eth0`, `%25eth0` in URLs): an interface name, the host's own. */
const IPV6_ZONE = '(?:%[0-9A-Za-z_.-]{1,64})?';
/** `::ffff:a.b.c.d` (and its long form): an IPv4 address, which gets the IPv4's pseudonym. */
const IPV4_MAPPED = /^(?:0{0,4}:){0,5}(?::|0{0,4}:)?ffff:((?:\d{1,3}\.){3}\d{1,3})$/i;
const FQDN = '(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.){2,}[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?';

const LABEL_CATEGORY: Record<string, Category> = lookupTable({
  namespace: 'ns',
  pod: 'pod',
  deployment: 'workload',
  statefulset: 'workload',
  daemonset: 'workload',
  service: 'workload',
  workload: 'workload',
  container: 'container',
  pod_template_hash: 'hash',
  node: 'host',
  host: 'host',
  hostname: 'host',
});

const REDACTED = '[redacted]';

/** The well-known names that hold a hyphen, matched whole before any embedded token. */
const FIXED_HYPHENATED = [...WELL_KNOWN]
  .filter((n) => n.includes('-'))
  .sort((a, b) => b.length - a.length || a.localeCompare(b))
  .map(escapeRegExp);

export class Redactor {
  private readonly pseudonyms = new Map<string, string>();
  private readonly counters = new Map<Category, number>();
  /** Known identifiers (from the report's structure) to replace wherever they appear as a token. */
  private readonly known = new Map<string, Category>();
  private pattern: RegExp | null = null;

  /** Records the identifiers the report's structure names, so free text is redacted with them. */
  learn(value: unknown, key?: string): void {
    if (typeof value === 'string') {
      const category = key !== undefined ? KEY_CATEGORIES[key] : undefined;
      if (category) this.remember(value, category);
      if (key === 'destination' || key === 'worstWorkload' || key === 'target') {
        const pair = NAMESPACED_NAME.exec(value);
        if (pair) {
          this.remember(pair[1]!, 'ns');
          this.remember(pair[2]!, 'workload');
        }
      }
      for (const m of value.matchAll(KIND_REFERENCE)) {
        this.remember(m[1]!, 'ns');
        this.remember(m[2]!, 'workload');
      }
      for (const m of value.matchAll(LABEL_PAIR)) {
        const c = LABEL_CATEGORY[m[2]!];
        if (c && m[3]) this.remember(m[3], c);
      }
      for (const m of value.matchAll(POD_LOG_DIR)) {
        this.remember(m[1]!, 'ns');
        this.remember(m[2]!, 'pod');
      }
      for (const m of value.matchAll(SERVICE_ACCOUNT)) {
        this.remember(m[1]!, 'ns');
        this.remember(m[2]!, 'account');
      }
    } else if (Array.isArray(value)) {
      for (const v of value) this.learn(v, key);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) this.learn(v, k);
    }
  }

  /**
   * Input file names, learnt before anything else so every one is treated alike: a name shaped like
   * a Deployment's or DaemonSet's pod (`web-6c7d8f9b5-x2x8k.log`) is a pod; any other name (a
   * paste saved as `cd-1265-errors-plugin-2017.log`, `events.txt`) is a file, `file-1`, whatever
   * a rule guessed from it. Directory parts are left to the pod-layout patterns.
   */
  learnInputNames(paths: readonly string[]): void {
    for (const p of paths) {
      const base = withoutExtensions(p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf(':')) + 1));
      if (base === '' || WELL_KNOWN.has(base) || /^\d+$/.test(base) || /^readme$/i.test(base)) continue;
      this.remember(base, POD_OF_DEPLOYMENT.test(base) || POD_OF_DAEMONSET.test(base) ? 'pod' : 'file');
    }
  }

  /** The value with every identifier replaced; objects and arrays are copied, keys included. */
  redact<T>(value: T): T {
    if (typeof value === 'string') return this.redactText(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redact(v)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.redactText(k), this.redact(v)])) as T;
    }
    return value;
  }

  redactText(text: string): string {
    this.pattern ??= this.buildPattern();
    return text.replace(
      this.pattern,
      (
        match,
        jwt: string | undefined,
        scheme: string | undefined,
        _credential: string | undefined,
        parameter: string | undefined,
        _parameterValue: string | undefined,
        email: string | undefined,
        fixed: string | undefined,
        uuid: string | undefined,
        fqdn: string | undefined,
        ipv4: string | undefined,
        ipv6: string | undefined,
        token: string | undefined,
        embedded: string | undefined,
      ) => {
        if (jwt) return REDACTED;
        if (scheme) return `${scheme}${REDACTED}`;
        if (parameter) return `${parameter}${REDACTED}`;
        if (email) return this.pseudonym(email.toLowerCase(), 'email');
        if (fixed) return fixed;
        if (embedded) return this.pseudonym(embedded, this.known.get(embedded)!);
        if (uuid) return this.pseudonym(uuid.toLowerCase(), 'uid');
        if (fqdn) return this.redactHost(fqdn);
        if (ipv4) return isIPv4(ipv4) && !ipv4.startsWith('127.') && ipv4 !== '0.0.0.0' ? this.pseudonym(ipv4, 'ip') : ipv4;
        if (ipv6) return this.redactIPv6(ipv6);
        if (token) return this.pseudonym(token, this.known.get(token)!);
        return match;
      },
    );
  }

  private redactIPv6(address: string): string {
    if (!isIPv6(address) || address === '::1' || address === '::') return address;
    const zone = address.indexOf('%');
    const bare = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
    const mapped = IPV4_MAPPED.exec(bare)?.[1];
    if (mapped !== undefined) return mapped.startsWith('127.') || mapped === '0.0.0.0' ? address : `::ffff:${this.pseudonym(mapped, 'ip')}`;
    return this.pseudonym(bare, 'ip');
  }

  private redactHost(name: string): string {
    const trailingDot = name.endsWith('.') ? '.' : '';
    const bare = trailingDot ? name.slice(0, -1) : name;
    const lower = bare.toLowerCase();
    const labels = bare.split('.');
    const last = labels[labels.length - 1]!.toLowerCase();
    if (FILE_ENDINGS.has(last) || PUBLIC_SUFFIXES.some((s) => lower === s || lower.endsWith(`.${s}`))) return name;
    // Label by label: the cluster's naming scheme (`.svc.cluster.local`, Linkerd's Services)
    // stays readable, the user's names go; the top-level label identifies nobody.
    const redacted = labels.map((label, i) => {
      if (i === labels.length - 1 || WELL_KNOWN.has(label.toLowerCase())) return label;
      const known = this.known.get(label);
      return this.pseudonym(label.toLowerCase(), known ?? 'host');
    });
    return redacted.join('.') + trailingDot;
  }

  private remember(value: string, category: Category): void {
    if (category === 'pod') {
      // The report names workloads by the pods' generated names too ("30 traefik proxies").
      const generated = POD_OF_DEPLOYMENT.exec(value) ?? POD_OF_DAEMONSET.exec(value) ?? POD_OF_STATEFULSET.exec(value);
      if (generated) {
        this.remember(generated[1]!, 'workload');
        if (generated[2]) this.remember(generated[2], 'hash');
      }
    }
    if (value === '' || WELL_KNOWN.has(value) || this.known.has(value)) return;
    // A value that is itself an address or a host name is redacted by its shape, not as a token.
    if (isIPv4(value) || isIPv6(value) || new RegExp(`^${FQDN}$`).test(value)) return;
    if (!/^[A-Za-z0-9][-A-Za-z0-9_.]*$/.test(value)) return;
    this.known.set(value, category);
    this.pattern = null;
  }

  private pseudonym(value: string, category: Category): string {
    const key = `${category}\u0000${value}`;
    let name = this.pseudonyms.get(key);
    if (!name) {
      const n = (this.counters.get(category) ?? 0) + 1;
      this.counters.set(category, n);
      name = `${category}-${n}`;
      this.pseudonyms.set(key, name);
    }
    return name;
  }

  private buildPattern(): RegExp {
    // Longest first, so `web-1` wins over `web` at the same position.
    const byLength = (a: string, b: string): number => b.length - a.length || a.localeCompare(b);
    const tokens = [...this.known.keys()].sort(byLength).map(escapeRegExp);
    const embedded = [...this.known]
      .filter(([, c]) => EMBEDDED.has(c))
      .map(([t]) => t)
      .sort(byLength)
      .map(escapeRegExp);
    const alternative = (names: string[], before: string, after: string): string => (names.length > 0 ? `|${before}(${names.join('|')})${after}` : '|(?!)()');
    // One pass over each string: a replacement is never scanned again, so `ip-1` cannot be
    // mistaken for a token. Secrets first (a JWT's dots would read as a host name); then
    // Linkerd's fixed hyphenated names whole, so a namespace called `proxy` leaves
    // `linkerd-proxy` alone; then the shapes; the known tokens as whole words (a pod
    // `shop-api-…` is one pod, not namespace `shop` and a rest); last namespaces and accounts
    // inside a hyphenated word (`linkerd-shop-destination`), which would otherwise leak them.
    return new RegExp(
      SECRET_PATTERN +
        `|${EMAIL}` +
        alternative(FIXED_HYPHENATED, '(?<![A-Za-z0-9-])', '(?![A-Za-z0-9-])') +
        `|(?<![0-9A-Za-z-])(${UUID})(?![0-9A-Za-z-])` +
        `|(?<![A-Za-z0-9.-])(${FQDN})(?![A-Za-z0-9-])` +
        `|(?<![0-9.])(${IPV4})(?![0-9]|\\.[0-9])` +
        // Not followed by `.digit`: `::ffff:192` is no address when `.168.7.9` follows.
        `|(?<![0-9A-Za-z:.])(${IPV6}${IPV6_ZONE})(?![0-9A-Za-z:]|\\.[0-9])` +
        alternative(tokens, '(?<![A-Za-z0-9-])', '(?![A-Za-z0-9-])') +
        alternative(embedded, '(?<![A-Za-z0-9])', '(?![A-Za-z0-9])'),
      'g',
    );
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The report with every identifier replaced by its pseudonym (a new object; the input is untouched). */
export function redactReport(report: Report, redactor: Redactor = new Redactor()): Report {
  redactor.learnInputNames(report.inputs.map((i) => i.path));
  redactor.learn(report);
  return redactor.redact(report);
}

/**
 * A file name without its trailing extensions (`proxy.log.gz` → `proxy`): dot-separated parts of
 * one to five letters or digits, cut from the end. A loop rather than `(?:\.\w{1,5})+$`, which an
 * unanchored search retries from every dot (quadratic in a name of many short parts).
 */
function withoutExtensions(name: string): string {
  let end = name.length;
  for (let dot = name.lastIndexOf('.', end - 1); dot >= 0; dot = name.lastIndexOf('.', end - 1)) {
    const part = name.slice(dot + 1, end);
    if (part.length < 1 || part.length > 5 || !/^[A-Za-z0-9]+$/.test(part)) break;
    end = dot;
  }
  return name.slice(0, end);
}
