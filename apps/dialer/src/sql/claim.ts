// The claim lives in ../claim/. predictive.ts and calls/originate.ts still import it from here.
export { type ClaimedLead, type ClaimRequest, claimLead, type LeadClaim } from '../claim/claim.js'
