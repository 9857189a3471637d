// The risk every OpenHands V0 tool call states (shared/toolsurf/openhands/execute_bash.json).
export const SECURITY_RISK = {
  type: 'string',
  description: "The LLM's assessment of the safety risk of this action. See the SECURITY_RISK_ASSESSMENT section in the system prompt for risk level definitions.",
  enum: ['LOW', 'MEDIUM', 'HIGH'],
} as const;
