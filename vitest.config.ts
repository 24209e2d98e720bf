import { configDefaults, defineConfig } from "vitest/config";

/**
 * Pure logic (`npm run test:fast`): tables, properties, in-memory ports. A unit test may use a
 * temp folder, but starts no server (emulator, node:http), watcher or other program, and never
 * needs dist/. The model test (test/model: the whole engine through 1,500 random histories) and
 * the .syncrc fuzzing (test/hostile) touch none of these either, but take most of a minute of
 * CPU: they run with the integration tests.
 */
const UNIT = [
  "src/**/*.test.ts",
  "test/api/retry-policy.test.ts",
  "test/bench/**/*.test.ts",
  "test/cli/{clock-time,errors,help-width,render-plan,status-render}.test.ts",
  "test/config/**/*.test.ts",
  "test/docs/**/*.test.ts",
  "test/emulator/{route-table,units}.test.ts",
  "test/git/commit-message.test.ts",
  "test/local/{backup-retention,ignore-rules,local-fs,recovery-layout,scan-tree,write-gate,write-session}.test.ts",
  "test/log/**/*.test.ts",
  "test/preview/toolchain.test.ts",
  "test/preview/package-folder.test.ts",
  "test/scheduling/**/*.test.ts",
  "test/state/{base-store,state-store}.test.ts",
  "test/support/**/*.test.ts",
  "test/sync/**/*.test.ts",
  "test/watch/debounced-batch.test.ts",
  "vscode/src/**/*.test.ts",
];

/** The built CLI: tests that spawn `dist/bin.cjs` or load `dist/` in a child process. dist/ is rebuilt first when stale. */
const E2E = [
  "test/e2e/**/*.test.ts",
  "test/daemon/{no-folder-left,reload,signals,two-writers,writers-by-order,deletion-notice,halt-handover,slow-writer}.test.ts",
  "test/hostile/key-scan.test.ts",
  "test/cli/lazy-commands.test.ts",
  "src/core/{code-cache,heap}.test.ts",
];

export default defineConfig({
  test: {
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // 2-core CI machines: keep parallelism modest so watcher/timing tests stay stable.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: UNIT, exclude: [...configDefaults.exclude, ...E2E] } },
      // Everything else: the real engine, chokidar, git, the emulator and other servers on
      // 127.0.0.1:0. A new test file lands here unless it is listed above or below.
      {
        extends: true,
        test: { name: "integration", include: ["src/**/*.test.ts", "test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...UNIT, ...E2E] },
      },
      // A test here runs the CLI several times, and one run can take seconds on a loaded 2-core
      // machine: six in a row met the 30 s bound with no test wrong.
      { extends: true, test: { name: "e2e", include: E2E, globalSetup: ["test/support/build-if-stale.ts"], testTimeout: 90_000, hookTimeout: 90_000 } },
    ],
  },
});
