"""Commands beside ``holdout audit``, one module each with ``main(argv) -> int``:
``holdout power`` ([`holdout.commands.power`][holdout.commands.power]) and ``holdout compare``
([`holdout.commands.compare`][holdout.commands.compare])."""
