/**
 * The blank design's scaffold (docs/service-facts.md#blank-design-scaffold): a React + Tailwind
 * app that compiles, in the service's style: named exports (`export function App()`), and
 * index.css starting with Tailwind's `@import` lines.
 */

/** Marks the region of App.tsx that generations rewrite; outside it, user code is left alone. */
export const GENERATED_START = "{/* generated:start */}";
/** End of the generated region. */
export const GENERATED_END = "{/* generated:end */}";

/** The four scaffold files, in the order the service lists them. */
export function scaffoldFiles(designName: string): Map<string, string> {
  const heading = JSON.stringify(designName);
  const app = [
    'import React from "react";',
    "",
    "export function App() {",
    "  return (",
    '    <main className="min-h-screen bg-gray-50 p-8">',
    `      ${GENERATED_START}`,
    `      <h1 className="text-3xl font-bold text-gray-900">{${heading}}</h1>`,
    `      ${GENERATED_END}`,
    "    </main>",
    "  );",
    "}",
    "",
  ].join("\n");
  const index = [
    'import React from "react";',
    'import { createRoot } from "react-dom/client";',
    'import { App } from "./App";',
    'import "./index.css";',
    "",
    'const container = document.getElementById("root");',
    "if (container) {",
    "  createRoot(container).render(<App />);",
    "}",
    "",
  ].join("\n");
  const css = ["@import 'tailwindcss/base';", "@import 'tailwindcss/components';", "@import 'tailwindcss/utilities';", ""].join("\n");
  const tailwind = [
    "/** @type {import('tailwindcss').Config} */",
    "export default {",
    '  content: ["./index.html", "./**/*.{ts,tsx,js,jsx}"],',
    "  theme: { extend: {} },",
    "  plugins: [],",
    "};",
    "",
  ].join("\n");
  return new Map([
    ["App.tsx", app],
    ["index.tsx", index],
    ["index.css", css],
    ["tailwind.config.js", tailwind],
  ]);
}
