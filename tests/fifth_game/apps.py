from games import plugin


class DurakConfig(plugin.GameConfig):
    name = "tests.fifth_game"
    label = "durak_test"
    verbose_name = "Durak (test)"
    kind = "tests.fifth_game.kind.DurakKind"
