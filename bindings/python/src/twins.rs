//! The sync / async pair of every call, written once: `twins!` turns one
//! definition into the blocking method (`search`, the GIL released while
//! Rust works) and its `a`-prefixed asyncio twin (`asearch`, an awaitable on
//! the shared tokio runtime), both with the same signature.

/// A `#[pymethods]` block of `Store`-like classes (a `inner: conv::Handle`
/// field). Each twin reads
/// `fn name / aname (args; **kwargs) signature (…) -> Ret => convert; |v, py| { …future… }`:
/// the body gets the open store `v` and `py`, checks its arguments (errors
/// raise at once, in both twins) and evaluates to the future; `convert`
/// turns its output into `Ret`. The `plain { … }` items are copied as they are.
macro_rules! twins {
    (
        impl $cls:ident {
            $(
                $(#[doc = $doc:literal])*
                fn $name:ident / $aname:ident ($($arg:ident : $ty:ty),* $(,)? $(; **$kw:ident)?)
                    signature $sig:tt -> $ret:ty
                    => $conv:expr;
                    |$v:ident, $py:ident| $body:block
            )*
        }
        plain { $($plain:tt)* }
    ) => {
        #[pymethods]
        impl $cls {
            $(
                $(#[doc = $doc])*
                #[pyo3(signature = $sig)]
                #[allow(clippy::too_many_arguments, clippy::needless_question_mark)]
                fn $name<'py>(&self, $py: Python<'py>, $($arg: $ty,)* $($kw: Option<&Bound<'py, pyo3::types::PyDict>>)?) -> PyResult<$ret> {
                    let $v = self.inner.get()?;
                    let fut = $body;
                    ($conv)($crate::conv::block($py, fut)?)
                }

                #[doc = concat!("Async `", stringify!($name), "` (an awaitable).")]
                #[pyo3(signature = $sig)]
                #[allow(clippy::too_many_arguments)]
                fn $aname<'py>(&self, $py: Python<'py>, $($arg: $ty,)* $($kw: Option<&Bound<'py, pyo3::types::PyDict>>)?) -> PyResult<Bound<'py, PyAny>> {
                    let $v = self.inner.get()?;
                    let fut = $body;
                    $crate::conv::spawn($py, fut, $conv)
                }
            )*
            $($plain)*
        }
    };
}

/// The sync / async pair of a module-level function, written once:
/// `fn name / aname (args; **kwargs) signature (…) -> Ret => convert; |py| { …future… }`,
/// as in [`twins!`] but without a store.
macro_rules! module_twins {
    (
        $(
            $(#[doc = $doc:literal])*
            fn $name:ident / $aname:ident ($($arg:ident : $ty:ty),* $(,)? $(; **$kw:ident)?)
                signature $sig:tt -> $ret:ty
                => $conv:expr;
                |$py:ident| $body:block
        )*
    ) => {
        $(
            $(#[doc = $doc])*
            #[pyfunction]
            #[pyo3(signature = $sig)]
            fn $name<'py>($py: Python<'py>, $($arg: $ty,)* $($kw: Option<&Bound<'py, pyo3::types::PyDict>>)?) -> PyResult<$ret> {
                let fut = $body;
                ($conv)($crate::conv::block($py, fut)?)
            }

            #[doc = concat!("Async `", stringify!($name), "` (an awaitable).")]
            #[pyfunction]
            #[pyo3(signature = $sig)]
            fn $aname<'py>($py: Python<'py>, $($arg: $ty,)* $($kw: Option<&Bound<'py, pyo3::types::PyDict>>)?) -> PyResult<Bound<'py, PyAny>> {
                let fut = $body;
                $crate::conv::spawn($py, fut, $conv)
            }
        )*
    };
}
