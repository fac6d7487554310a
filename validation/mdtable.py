# SPDX-License-Identifier: Apache-2.0
"""A data frame as a markdown table, for the validation scripts' printed tables (pandas' to_markdown needs the
tabulate package, which the project does not install)."""
import pandas as pd


def markdown(df: pd.DataFrame, index: bool = False) -> str:
    if index:
        df = df.reset_index()
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)
