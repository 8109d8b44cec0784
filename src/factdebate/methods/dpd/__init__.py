"""methods/dpd"""
