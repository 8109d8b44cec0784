"""methods/baselines"""
