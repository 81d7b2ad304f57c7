// Several PBXs on a real Asterisk 22, progressive mode (the cases: several-pbx.ts).
import { severalPbxSuite } from './several-pbx.js'

await severalPbxSuite('progressive')
