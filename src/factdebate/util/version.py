"""The package version, in a module of its own so that any module can name it without importing the
package's entry points (``factdebate/__init__`` reaches the API lazily)."""

__version__ = "0.1.0"
