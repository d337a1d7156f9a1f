// Types of the ES module entry point (index.mjs): the same as index.d.ts.
export * from './index.js'
