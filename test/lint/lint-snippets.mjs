// Lints snippets with the project's eslint.config.mjs, outside Jest (whose VM cannot load an ES module
// config). Reads [{path, code}] (code null: lint the file on disk) as JSON on stdin; writes the rule ids
// reported for each. Type-aware rules are off: the snippets are not on disk.
import { join } from 'node:path';
import process from 'node:process';
import { ESLint } from 'eslint';

const root = process.argv[2];
const eslint = new ESLint({
  cwd: root,
  ignore: false,
  overrideConfig: {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: null } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-misused-promises': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
});

let input = '';
for await (const chunk of process.stdin) input += chunk;
const out = [];
for (const { path, code } of JSON.parse(input)) {
  const filePath = join(root, path);
  const [result] = code === null ? await eslint.lintFiles([filePath]) : await eslint.lintText(code, { filePath });
  out.push((result?.messages ?? []).map((m) => m.ruleId ?? `fatal: ${m.message}`));
}
process.stdout.write(JSON.stringify(out));
