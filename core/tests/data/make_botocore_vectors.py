"""The AWS SDK's retry defaults as each botocore version simulates them.

Run with the python of each botocore to compare; rows are appended to
botocore_retries.tsv as: version, new retries on, the transient error's
scale and its wait at u = 0.5 for attempts 1 to 10, the retry cost of a
5xx reply, the refund of a success without retries, and the quota's
capacity. The Backoff panel simulates the 1.44 row (`AwsQuota`, `Aws`).

    python3 make_botocore_vectors.py >> botocore_retries.tsv
    /tmp/boto144/bin/python make_botocore_vectors.py >> botocore_retries.tsv
"""

import botocore
from botocore.retries import quota, standard


class Context:
    """A retry context for a 503 with no retry-after header."""

    def __init__(self, attempt):
        self.attempt_number = attempt
        self.http_response = None
        self.caught_exception = None
        self.operation_model = None
        self.parsed_response = {"Error": {"Code": "ServiceUnavailable"}}
        self.request_context = {}

    def get_error_code(self):
        return "ServiceUnavailable"

    def add_retry_metadata(self, **kwargs):
        pass


def main():
    new = bool(getattr(standard, "NEW_RETRIES_ENABLED", False))
    backoff = standard.ExponentialBackoff(random=lambda: 0.5)
    waits = [backoff.delay_amount(Context(n)) for n in range(1, 11)]
    bucket = quota.RetryQuota()
    checker = standard.RetryQuotaChecker(bucket)
    checker.acquire_retry_quota(Context(1))
    cost = quota.RetryQuota.INITIAL_CAPACITY - bucket.available_capacity
    row = [
        botocore.__version__,
        str(new).lower(),
        ",".join(repr(w) for w in waits),
        str(cost),
        str(standard.RetryQuotaChecker._NO_RETRY_INCREMENT),
        str(quota.RetryQuota.INITIAL_CAPACITY),
    ]
    print("\t".join(row))


main()
