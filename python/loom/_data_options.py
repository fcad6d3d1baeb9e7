"""loom.data.Options: tf.data.Options' fields that Loom has, fixed and
checked when assigned (an unknown name is an AttributeError listing the valid
ones, a wrong type a TypeError naming the field, an int out of range a
ValueError), and their translation into the C++ pipeline's options."""

from loom._data_structure import np

# The most threads a setting may name (loom::config::threading::kMaxThreads).
_MAX_THREADS = 4096


class _StrictOptions:
    """Options whose fields are fixed and checked when assigned: an unknown
    name is an AttributeError listing the valid ones, a wrong type a
    TypeError naming the field."""

    __slots__ = ()
    _FIELDS = {}  # name -> (check(value) -> error text or None, default factory)

    def __init__(self):
        for name, (_, default) in self._FIELDS.items():
            object.__setattr__(self, name, default())

    def __setattr__(self, name, value):
        fields = type(self)._FIELDS
        if name not in fields:
            raise AttributeError(
                f"{type(self).__name__} has no option {name!r}; valid options: "
                + ", ".join(sorted(fields))
            )
        problem = fields[name][0](value)
        if problem is not None:
            kind = ValueError if problem.startswith("must be from") else TypeError
            raise kind(f"{type(self).__name__}.{name} {problem}, got {value!r}")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and all(
            getattr(self, n) == getattr(other, n) for n in self._FIELDS
        )

    def __repr__(self):
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._FIELDS)
        return f"{type(self).__name__}({fields})"


def _int_or_none(low, high):
    def check(value):
        if value is None:
            return None
        # bool is an int to Python, but True threads is a mistake.
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            return "must be an int or None"
        if not low <= value <= high:
            return f"must be from {low} to {high}"
        return None

    return check


def _bool_or_none(value):
    if value is None or isinstance(value, (bool, np.bool_)):
        return None
    return "must be a bool or None"


def _instance_of(cls):
    def check(value):
        return None if isinstance(value, cls) else f"must be a {cls.__name__}"

    return check


class AutotuneOptions(_StrictOptions):
    """enabled: None/True = AUTOTUNE measures and climbs; False = AUTOTUNE is
    a fixed value: a map's parallelism min(data pool size, cpu_budget), a
    prefetch buffer of 1.
    cpu_budget: threads that may compute this pipeline's work at once (pool
    threads and the consumer together); None or 0 = the data pool's size.
    AUTOTUNE never chooses more."""

    __slots__ = ("enabled", "cpu_budget")
    _FIELDS = {
        "enabled": (_bool_or_none, lambda: None),
        "cpu_budget": (_int_or_none(0, _MAX_THREADS), lambda: None),
    }


class ThreadingOptions(_StrictOptions):
    """max_intra_op_parallelism: threads one op called inside a map or filter
    function may use; None = 1 (the pool already runs elements side by side),
    0 = no cap."""

    __slots__ = ("max_intra_op_parallelism",)
    _FIELDS = {"max_intra_op_parallelism": (_int_or_none(0, _MAX_THREADS), lambda: None)}


class Options(_StrictOptions):
    """Pipeline options, as tf.data.Options: ds.with_options(options).

    deterministic: what a map whose deterministic argument is None does;
    None/True = input order, False = a parallel map delivers elements as
    they finish. An unset field (None) keeps the dataset's earlier value
    when options are merged."""

    __slots__ = ("autotune", "threading", "deterministic")
    _FIELDS = {
        "autotune": (_instance_of(AutotuneOptions), AutotuneOptions),
        "threading": (_instance_of(ThreadingOptions), ThreadingOptions),
        "deterministic": (_bool_or_none, lambda: None),
    }

    def merge(self, options):
        """A new Options: these, with every field `options` sets overriding."""
        merged = Options()
        for source in (self, options):
            if source.deterministic is not None:
                merged.deterministic = source.deterministic
            for group in ("autotune", "threading"):
                for name in type(getattr(source, group))._FIELDS:
                    value = getattr(getattr(source, group), name)
                    if value is not None:
                        setattr(getattr(merged, group), name, value)
        return merged


def _apply_options(flat, options):
    autotune, threading = options.autotune, options.threading
    return flat.with_options(
        cpu_budget=autotune.cpu_budget or 0,
        max_intra_op_parallelism=(
            1
            if threading.max_intra_op_parallelism is None
            else threading.max_intra_op_parallelism
        ),
        deterministic=options.deterministic is not False,
        autotune=autotune.enabled is not False,
    )
