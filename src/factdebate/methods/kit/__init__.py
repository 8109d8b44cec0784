"""methods/kit"""
