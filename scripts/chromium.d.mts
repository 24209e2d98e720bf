import type { BrowserContext } from "playwright-core";

/** The browser: MPSYNC_CHROMIUM, else Debian's. */
export declare const CHROMIUM: string;
/** Headless, no sandbox (containers), and nothing that reaches the network on its own. */
export declare const CHROMIUM_FLAGS: readonly string[];
/** Starts Chromium with a fresh profile in a temp folder named from `prefix`; `close` removes it. */
export declare function launchChromium(prefix: string): Promise<{ context: BrowserContext; close(): Promise<void> }>;
