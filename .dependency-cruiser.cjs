// Import cycles, type-only imports included: a cycle of types is still two
// modules that cannot be understood apart. (The layer zones are in
// eslint.config.mjs, where the editor shows them as you type.)
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other, directly or around a loop: move what both need into one of them or below both.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(out|dist|node_modules)/' },
  },
};
