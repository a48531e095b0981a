import { EngineError, ErrorType } from '../../../core/errors';

/**
 * Per-tool circuit breakers, in memory per worker (§6.10). After `threshold` tool calls in a row
 * found the upstream unhealthy, the circuit opens and calls fail fast for `openMs`; then one trial
 * call is let through (half-open): an answer closes the circuit, an unhealthy upstream opens it
 * again. What counts as unhealthy is the invoker's to say; this counts calls, not attempts: the
 * activity retries of one call (same call id) count once, as the Java engine, which has no activity
 * retries, counts one failure per call. So one turn's failing call cannot open the circuit for
 * every other conversation.
 */
export interface CircuitSettings {
  enabled: boolean;
  threshold: number;
  openMs: number;
}

interface CircuitState {
  /** Calls that found the upstream unhealthy since it last answered; bounded by the threshold. */
  failedCalls: Set<string>;
  openUntil: number;
  halfOpen: boolean;
}

export type CircuitPhase = 'CLOSED' | 'OPEN' | 'HALF_OPEN';

export class CircuitRegistry {
  private readonly states = new Map<string, CircuitState>();

  constructor(private readonly now: () => number = Date.now) {}

  private state(toolCode: string): CircuitState {
    let state = this.states.get(toolCode);
    if (!state) {
      state = { failedCalls: new Set(), openUntil: 0, halfOpen: false };
      this.states.set(toolCode, state);
    }
    return state;
  }

  phase(toolCode: string): CircuitPhase {
    const state = this.states.get(toolCode);
    if (!state || state.openUntil === 0) return 'CLOSED';
    return this.now() < state.openUntil ? 'OPEN' : 'HALF_OPEN';
  }

  /** Throws TOOL_CIRCUIT_OPEN while open; lets one trial through once the open window has passed. */
  beforeCall(toolCode: string, settings: CircuitSettings): void {
    if (!settings.enabled) return;
    const state = this.state(toolCode);
    if (state.openUntil === 0) return;
    const remaining = state.openUntil - this.now();
    if (remaining > 0 || state.halfOpen) {
      throw new EngineError(
        ErrorType.ToolCircuitOpen,
        `Circuit open for tool ${toolCode} (retry in ${Math.max(remaining, 0)} ms)`,
        { details: { toolCode, remainingMs: Math.max(remaining, 0) } }
      );
    }
    state.halfOpen = true;
  }

  /** The upstream answered (a success, or an answer that blames the request): the circuit closes. */
  onHealthy(toolCode: string): void {
    this.states.delete(toolCode);
  }

  /** The upstream is unhealthy for call `callId`; a call already counted is not counted again. */
  onUnhealthy(toolCode: string, settings: CircuitSettings, callId: string): void {
    if (!settings.enabled) return;
    const state = this.state(toolCode);
    state.failedCalls.add(callId);
    if (state.halfOpen || state.failedCalls.size >= settings.threshold) {
      state.openUntil = this.now() + settings.openMs;
      state.halfOpen = false;
      state.failedCalls.clear();
    }
  }

  /** The call ended with no word on the upstream (cancelled): a half-open trial is let go, so the next call tries. */
  onAbandoned(toolCode: string): void {
    const state = this.states.get(toolCode);
    if (state) state.halfOpen = false;
  }
}
