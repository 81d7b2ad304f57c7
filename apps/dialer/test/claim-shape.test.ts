// claimShape, the SQLite claim's key for its memo of probes that found nothing due: two claims get
// the same shape exactly when their callback and retry parts run the same SQL text with the same pin.
import t from 'tap'
import { candidateStatement, claimParts, claimShape } from '../src/claim/candidates.js'
import type { ClaimRequest } from '../src/claim/request.js'

const NOW = new Date('2026-11-23T12:00:00.000Z')
const LATER = new Date('2026-11-23T12:00:05.000Z')

const base: ClaimRequest = {
  dialerId: 'd1',
  now: NOW,
  inHours: true,
  dialablePriorities: [1, 2],
  pinnedAgentId: null,
}

/** One request for every input that changes the candidate SQL, and some that change values only. */
const requests: Record<string, ClaimRequest> = {
  base,
  laterOtherValues: { ...base, now: LATER, dialerId: 'd2', dialablePriorities: [2, 8] },
  outOfHours: { ...base, inHours: false },
  threePriorities: { ...base, dialablePriorities: [1, 2, 8] },
  pinned: { ...base, pinnedAgentId: 7 },
  pinnedOther: { ...base, pinnedAgentId: 8 },
  onlyMine: { ...base, pinnedAgentId: 7, onlyMine: true },
  unpinnedOnly: { ...base, unpinnedOnly: true },
  fallback: { ...base, pinnedAgentId: 7, pinnedFallback: { dueBefore: NOW, workingDueBefore: NOW } },
  fallbackOtherTimes: {
    ...base,
    pinnedAgentId: 7,
    pinnedFallback: { dueBefore: LATER, workingDueBefore: LATER },
  },
  fallbackOfPbx: {
    ...base,
    pinnedAgentId: 7,
    pinnedFallback: { dueBefore: NOW, workingDueBefore: NOW, pbx: 'east' },
  },
  fallbackOfOtherPbx: {
    ...base,
    pinnedAgentId: 7,
    pinnedFallback: { dueBefore: LATER, workingDueBefore: LATER, pbx: 'west' },
  },
  fallbackCallbacksOnly: {
    ...base,
    pinnedAgentId: 7,
    pinnedFallback: { dueBefore: NOW, workingDueBefore: null },
  },
  excluded: { ...base, excludeIds: [5] },
  excludedTwo: { ...base, excludeIds: [5, 6] },
  capsGap: { ...base, numberCaps: { lastEndedBefore: NOW } },
  capsDay: { ...base, numberCaps: { perDay: { since: NOW, max: 3 } } },
  capsBoth: { ...base, numberCaps: { lastEndedBefore: NOW, perDay: { since: NOW, max: 3 } } },
  capsNone: { ...base, numberCaps: {} },
  zones: { ...base, customerZones: { callable: ['America/New_York'], unzonedCallable: true } },
  zonesOther: { ...base, customerZones: { callable: ['Asia/Kolkata'], unzonedCallable: true } },
  zonesNoUnzoned: { ...base, customerZones: { callable: ['America/New_York'], unzonedCallable: false } },
  zonesTwo: {
    ...base,
    customerZones: { callable: ['America/New_York', 'Asia/Kolkata'], unzonedCallable: true },
  },
  zonesNone: { ...base, customerZones: { callable: [], unzonedCallable: false } },
}

/** What the memo stands for: the pin and the SQL text of the callback and retry parts. */
const dueSql = (req: ClaimRequest) =>
  `${req.pinnedAgentId}\n${claimParts(req, 'sqlite')
    .filter((part) => part.category !== 'pending')
    .map((part) => candidateStatement(req, part, 'row').sql)
    .join('\n')}`

t.test('equal shapes exactly when the pin and the due parts SQL are equal', async (t) => {
  const names = Object.keys(requests)
  for (const a of names) {
    for (const b of names) {
      const ra = requests[a]!
      const rb = requests[b]!
      t.equal(claimShape(ra) === claimShape(rb), dueSql(ra) === dueSql(rb), `${a} / ${b}`)
    }
  }
  t.equal(claimShape(requests.base!), claimShape(requests.laterOtherValues!), 'values alone keep the shape')
  t.not(claimShape(requests.base!), claimShape(requests.outOfHours!), 'a changed SQL text changes it')
})
