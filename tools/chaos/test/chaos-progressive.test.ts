import t from 'tap'
import { chaosRunTest } from './chaos-run.js'

// One mode per file, so that the two runs wait side by side (tap runs a package's files 4 at a time).
chaosRunTest(t, 'progressive', 1101)
