import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The extension in a real VS Code (`npm run test:vscode`): code-server from npm, driven through
 * Debian's Chromium. Its own run, apart from `npm test`: it needs what
 * scripts/vscode-test-setup.sh installs. One file at a time: one editor is a lot for 2 cores.
 */
export default defineConfig({
  root: join(import.meta.dirname, ".."),
  test: {
    include: ["vscode/test/**/*.test.ts"],
    globalSetup: ["test/support/build-if-stale.ts"],
    pool: "forks",
    maxWorkers: 1,
    testTimeout: 240_000,
    hookTimeout: 240_000,
  },
});
