// Lint: type-aware rules for promises and switches, no import cycles, and the layer
// direction of docs/architecture (shared DESIGN §2): a module may import only from its own
// folder, from a folder on its own level, or from a lower level. An upward import fails.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const layers = [
  ['protocol'],
  ['registry', 'policy', 'resources', 'redact', 'telemetry'],
  ['store', 'artifacts', 'sandbox'],
  ['tools', 'connectors', 'tasks'],
  ['runtime'],
  ['server', 'cli'],
];

const zones = [];
layers.forEach((level, i) => {
  const higher = layers.slice(i + 1).flat();
  for (const folder of level) {
    if (higher.length === 0) continue;
    zones.push({
      target: `./src/${folder}`,
      from: higher.map((h) => `./src/${h}`),
      message: `layer direction: src/${folder} may not import from a higher layer`,
    });
  }
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/.work/**', 'coverage/**', 'scratch/**', '.node-versions-work/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'export * hides what the module exposes: name each export' },
      ],
    },
  },
  {
    files: ['src/protocol/**/*.ts'],
    rules: {
      // protocol stays free of I/O; node:crypto is pure computation and ~10x faster than a JS sha256.
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^node:(?!crypto$)', message: 'src/protocol may import no node:* module but node:crypto' }] },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', performance: 'readonly', URL: 'readonly' } },
  },
);
