import * as assert from 'node:assert/strict';
import { trustedUsage } from '../../src/core/llm/runner';

describe('model-call spending', () => {
  const counted = { inputTokens: 120, outputTokens: 30 };

  it('counts what was sent when the server reports no usage, zero, a negative or a non-number', () => {
    assert.deepEqual(trustedUsage(undefined, counted), counted);
    assert.deepEqual(trustedUsage({ inputTokens: 0, outputTokens: 0 }, counted), counted);
    assert.deepEqual(trustedUsage({ inputTokens: -5, outputTokens: -1 }, counted), counted);
    assert.deepEqual(trustedUsage({ inputTokens: Number.NaN, outputTokens: 12 }, counted), { inputTokens: 120, outputTokens: 12 });
  });

  it("takes a believable count from the server", () => {
    assert.deepEqual(trustedUsage({ inputTokens: 150, outputTokens: 40 }, counted), { inputTokens: 150, outputTokens: 40 });
  });
});
