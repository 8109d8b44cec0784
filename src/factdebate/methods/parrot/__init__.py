"""``parrot``: the example method, a whole method in one folder (docs/methods/parrot.md).

It is not registered, so ``factdebate methods`` lists only real methods: tests/methods/test_plugin_example.py
registers it (``register(Parrot)``, what ``@register`` on the class would do) and finds it everywhere."""
