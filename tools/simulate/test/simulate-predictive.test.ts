import t from 'tap'
import { modeRunTest } from './mode-run.js'

modeRunTest(t, 'predictive')
