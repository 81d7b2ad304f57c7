import t from 'tap'
import { chaosRunTest } from './chaos-run.js'

// One mode per file, so that the two runs wait side by side (tap runs a package's files 4 at a time).
// Seed 1001 draws pbx, db, kill as the main line's first round: each kind comes at least once even
// when a loaded machine slows the dialers' recovery, and with it the faults that follow.
chaosRunTest(t, 'predictive', 1001)
