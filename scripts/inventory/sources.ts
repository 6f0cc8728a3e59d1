// Which upstream files hold which component's log call sites, and which refs are its releases.
// Paths are git pathspecs relative to each repository; test code, fixtures and integration
// harnesses are left out (they never run in a user's cluster).

export type Language = 'rust' | 'go';

export interface ComponentSource {
  /** The component as users name it (the container or controller that logs the line). */
  component: string;
  repo: 'linkerd2-proxy' | 'linkerd2' | 'linkerd2-proxy-init';
  language: Language;
  pathspecs: readonly string[];
  /** For proxy-init's tools, each released on its own tag prefix (`cni-plugin/v1.6.2`). */
  tagPrefix?: string;
  /**
   * Read at the proxy these (pre-2.8) Linkerd releases pinned instead of the latest, keeping only
   * messages the current proxy no longer logs: the 2019-2020 wordings users still paste.
   */
  legacyReleases?: readonly string[];
}

const RUST_TESTS = [
  ':!**/tests/**',
  ':!**/tests.rs',
  ':!**/test_util*',
  ':!**/test-util/**',
  ':!**/mock*',
  ':!**/fuzz/**',
  ':!**/benches/**',
  ':!**/integration/**',
  ':!**/build.rs',
];
const GO_TESTS = [':!**/*_test.go', ':!**/testutil/**', ':!**/test/**', ':!**/fake/**', ':!**/gen/**'];

export const COMPONENT_SOURCES: readonly ComponentSource[] = [
  { component: 'proxy', repo: 'linkerd2-proxy', language: 'rust', pathspecs: ['*.rs', ':!linkerd/app/test/**', ':!tools/**', ...RUST_TESTS] },
  {
    component: 'proxy-legacy',
    repo: 'linkerd2-proxy',
    language: 'rust',
    legacyReleases: ['stable-2.6.1', 'stable-2.7.1'],
    pathspecs: ['*.rs', ':!linkerd/app/test/**', ':!tools/**', ...RUST_TESTS],
  },
  { component: 'policy-controller', repo: 'linkerd2', language: 'rust', pathspecs: ['policy-controller/*.rs', ...RUST_TESTS] },
  {
    component: 'destination',
    repo: 'linkerd2',
    language: 'go',
    pathspecs: ['controller/api/destination/*.go', 'controller/cmd/destination/*.go', ...GO_TESTS],
  },
  {
    component: 'identity',
    repo: 'linkerd2',
    language: 'go',
    pathspecs: ['controller/identity/*.go', 'controller/cmd/identity/*.go', 'pkg/identity/*.go', ...GO_TESTS],
  },
  {
    component: 'proxy-injector',
    repo: 'linkerd2',
    language: 'go',
    pathspecs: ['controller/proxy-injector/*.go', 'controller/cmd/proxy-injector/*.go', 'controller/webhook/*.go', 'pkg/inject/*.go', ...GO_TESTS],
  },
  { component: 'heartbeat', repo: 'linkerd2', language: 'go', pathspecs: ['controller/heartbeat/*.go', 'controller/cmd/heartbeat/*.go', ...GO_TESTS] },
  {
    component: 'controller',
    repo: 'linkerd2',
    language: 'go',
    // What every Go controller links: the Kubernetes API wrappers, admin server, flags, TLS.
    pathspecs: [
      'controller/*.go',
      'pkg/*.go',
      ':!controller/api/destination/**',
      ':!controller/cmd/destination/**',
      ':!controller/identity/**',
      ':!controller/cmd/identity/**',
      ':!pkg/identity/**',
      ':!controller/proxy-injector/**',
      ':!controller/cmd/proxy-injector/**',
      ':!controller/webhook/**',
      ':!pkg/inject/**',
      ':!controller/heartbeat/**',
      ':!controller/cmd/heartbeat/**',
      ':!pkg/healthcheck/**',
      ':!pkg/charts/**',
      ':!pkg/version/**',
      ':!pkg/cmd/**',
      ':!controller/script/**',
      ...GO_TESTS,
    ],
  },
  {
    component: 'proxy-init',
    repo: 'linkerd2-proxy-init',
    language: 'go',
    tagPrefix: 'proxy-init/',
    pathspecs: ['proxy-init/*.go', 'pkg/*.go', 'internal/*.go', ...GO_TESTS],
  },
  { component: 'cni-plugin', repo: 'linkerd2-proxy-init', language: 'go', tagPrefix: 'cni-plugin/', pathspecs: ['cni-plugin/*.go', ...GO_TESTS] },
  { component: 'network-validator', repo: 'linkerd2-proxy-init', language: 'rust', tagPrefix: 'validator/', pathspecs: ['validator/*.rs', ...RUST_TESTS] },
  { component: 'cni-repair-controller', repo: 'linkerd2-proxy-init', language: 'rust', pathspecs: ['cni-repair-controller/*.rs', ...RUST_TESTS] },
];

/**
 * The Linkerd releases users still run, oldest first: the last patch of stable-2.8 … 2.14 (after
 * 2.14 Buoyant took over stable builds; the open-source tags are version-2.N). The proxy's version
 * at each comes from that tag's `.proxy-version`.
 */
export const LINKERD_RELEASES: readonly string[] = [
  'stable-2.8.1',
  'stable-2.9.5',
  'stable-2.10.2',
  'stable-2.11.5',
  'stable-2.12.6',
  'stable-2.13.7',
  'stable-2.14.10',
  'version-2.15',
  'version-2.16',
  'version-2.17',
  'version-2.18',
  'version-2.19',
  'version-2.20',
];
