// Test-only TypeScript loader. tsx minifies whitespace before handing code to Node, which leaves
// V8 coverage with two or three "lines" per file and makes tap's coverage summary meaningless;
// TypeScript's own transpileModule keeps the line structure, so coverage maps line for line.
import { register } from 'node:module'

register('./hooks.mjs', import.meta.url)
