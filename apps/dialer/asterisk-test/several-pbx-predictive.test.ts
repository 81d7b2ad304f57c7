// Several PBXs on a real Asterisk 22, predictive mode (the cases: several-pbx.ts).
import { severalPbxSuite } from './several-pbx.js'

await severalPbxSuite('predictive')
