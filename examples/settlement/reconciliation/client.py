"""Client for the settlement service, used by the reconciliation jobs."""

MAX_ATTEMPTS = 3


class SettlementClient:
    def __init__(self, base_url: str):
        self.base_url = base_url

    def settle(self, instruction_id: str) -> dict:
        return {"id": instruction_id, "status": "submitted"}

    def retry(self, instruction_id: str, attempt: int) -> dict:
        if attempt > MAX_ATTEMPTS:
            raise RuntimeError("retry budget exhausted")
        return {"id": instruction_id, "status": "resubmitted", "attempt": attempt}
