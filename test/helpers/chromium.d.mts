import type { BrowserContext, Page } from 'playwright-core';

export declare const CHROMIUM_PATH: string;
export declare const CHROMIUM_ARGS: readonly string[];
export declare function chromiumMissing(): string | undefined;

export interface LaunchOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  deviceScaleFactor?: number;
}

export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

export declare function launchChromium(options?: LaunchOptions): Promise<LaunchedChromium>;

export interface WatchedPage {
  page: Page;
  consoleErrors: string[];
  pageErrors: string[];
  requests: string[];
}

export declare function watchPage(page: Page): WatchedPage;
