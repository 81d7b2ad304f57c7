export { loadScenario, parseScenario, type Scenario, scenarioToOptions } from './scenario.js'
export type { AmiEventRecord, ChannelInfo } from './sim.js'
export { DEFAULT_OUTCOME, PbxSim, startPbxSim } from './sim.js'
export type {
  AgentDeviceSetting,
  CallMode,
  CallOutcome,
  CallRecord,
  CustomerScript,
  DeviceState,
  HangupParty,
  OriginateResponseOrder,
  PbxSimOptions,
} from './types.js'
