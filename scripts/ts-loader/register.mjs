// Test-only TypeScript loader. tsx minifies whitespace before handing code to Node, which leaves
// V8 coverage with two or three "lines" per file and makes tap's coverage summary meaningless;
// TypeScript's own transpileModule keeps the line structure, so coverage maps line for line.
import { registerHooks } from 'node:module'
import { load, resolve } from './hooks.mjs'

if (typeof registerHooks !== 'function') {
  throw new Error(
    `the test loader needs Node 22.15 or later (module.registerHooks); this is ${process.version}`,
  )
}
registerHooks({ resolve, load })
