/**
 * The design the preview bench measures: what the service's ZIP and GitHub exports hold
 * (docs/service-facts.md#exports-and-runtime): a Vite + React + TypeScript + Tailwind v3
 * project, its package.json naming the versions an export names, `src/main.tsx` mounting an App
 * that renders a component with state and an icon from lucide-react.
 */

/** The export's package.json: its dependencies and the toolchain it names (Vite 5, plugin-react 4). */
export const EXPORT_MANIFEST = {
  name: "magic-patterns-vite-template",
  private: true,
  version: "0.0.1",
  type: "module",
  scripts: { dev: "npx vite", build: "npx vite build", preview: "npx vite preview" },
  dependencies: { react: "^18.3.1", "react-dom": "^18.3.1", "lucide-react": "0.522.0" },
  devDependencies: {
    "@types/react": "^18.3.1",
    "@types/react-dom": "^18.3.1",
    "@vitejs/plugin-react": "^4.2.1",
    autoprefixer: "^10.4.18",
    postcss: "^8.4.35",
    tailwindcss: "3.4.17",
    typescript: "^5.5.4",
    vite: "^5.2.0",
  },
};

/** The stylesheet, the heading's letter spacing `px` (what a stylesheet save changes). */
export const EXPORT_CSS = (px) => `@tailwind base;\n@tailwind components;\n@tailwind utilities;\n\nh1 { letter-spacing: ${px}px; }\n`;

/** The component with state; its heading reads `text` (what a component save changes). */
export const EXPORT_COUNTER = (text) =>
  [
    'import React, { useState } from "react";',
    'import { PlusIcon } from "lucide-react";',
    "",
    "export function Counter() {",
    "  const [count, setCount] = useState(0);",
    "  return (",
    '    <section className="rounded-xl bg-white p-6 shadow">',
    `      <h1 className="text-3xl font-bold text-gray-900">${text}</h1>`,
    '      <button id="count" className="mt-4 inline-flex items-center gap-2 rounded bg-indigo-600 px-4 py-2 text-white" onClick={() => setCount(count + 1)}>',
    "        <PlusIcon size={16} /> {count}",
    "      </button>",
    "    </section>",
    "  );",
    "}",
    "",
  ].join("\n");

/** Where the bench saves, relative to the design's folder. */
export const CSS_FILE = "src/index.css";
export const COMPONENT_FILE = "src/components/Counter.tsx";

/** Every file of the export, its heading reading `heading`. */
export function exportFiles(heading) {
  return {
    "package.json": `${JSON.stringify(EXPORT_MANIFEST, null, 2)}\n`,
    "index.html":
      '<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="UTF-8" />\n    <meta name="viewport" content="width=device-width, initial-scale=1.0" />\n    <title>Magic Patterns</title>\n  </head>\n  <body>\n    <div id="root"></div>\n    <script type="module" src="/src/main.tsx"></script>\n  </body>\n</html>\n',
    "vite.config.ts":
      "import { defineConfig } from 'vite'\nimport react from '@vitejs/plugin-react'\n\nexport default defineConfig({\n  plugins: [react()],\n})\n",
    "tailwind.config.js": "export default {\n  content: ['./index.html', './src/**/*.{js,ts,jsx,tsx}'],\n  theme: { extend: {} },\n  plugins: [],\n}\n",
    "postcss.config.js": "export default {\n  plugins: {\n    tailwindcss: {},\n    autoprefixer: {},\n  },\n}\n",
    "tsconfig.json": `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2020",
          lib: ["ES2020", "DOM", "DOM.Iterable"],
          module: "ESNext",
          moduleResolution: "bundler",
          jsx: "react-jsx",
          strict: true,
          noEmit: true,
          isolatedModules: true,
          skipLibCheck: true,
        },
        include: ["src"],
      },
      null,
      2,
    )}\n`,
    "src/main.tsx":
      'import React from "react";\nimport { createRoot } from "react-dom/client";\nimport "./index.css";\nimport { App } from "./App";\n\ncreateRoot(document.getElementById("root")!).render(<App />);\n',
    "src/App.tsx":
      'import React from "react";\nimport { Counter } from "./components/Counter";\n\nexport function App() {\n  return (\n    <main className="min-h-screen bg-gray-50 p-8">\n      <Counter />\n    </main>\n  );\n}\n',
    [COMPONENT_FILE]: EXPORT_COUNTER(heading),
    [CSS_FILE]: EXPORT_CSS(0),
  };
}
