"""Values and rules with one home: each layer imports it instead of keeping its own copy."""

from config.decimals import CENT


def test_the_two_decimal_quantum_is_one_value_for_results_and_ratings():
    import matches.inputs
    import ratings.cents

    assert matches.inputs.CENT is CENT
    assert ratings.cents.CENT is CENT
